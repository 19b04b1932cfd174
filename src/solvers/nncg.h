/* nncg's entry for auto: whether a global problem takes the velocity form. */
#ifndef FRICON_NNCG_H
#define FRICON_NNCG_H

#include "internal.h"

/* 1 when p is global and its M symmetric and block diagonal with blocks
 * of at most 12 dofs (rigid bodies): nncg sweeps (M, H) without W. */
int fc_nncg_velocity_form(const fc_problem *p);

#endif
