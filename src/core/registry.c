/* The solver registry: every solver by name, with a one-line description
 * and the dimensions it handles.  A new solver is one line here and one
 * file under src/solvers/. */
#include "internal.h"
#ifdef FRICON_MPI
#include "dist/dist.h"
#endif

/* ipm-mdp and gipm on (M, H) directly: the primal (bodies') form. */
static fc_status ipm_mdp_direct(const fc_problem *p, const fc_options *opt, double *r, double *u,
                                double *v, fc_info *info)
{
    fc_options o = *opt;
    o.ipm.formulation = FC_IPM_PRIMAL;
    return fc_ipm_mdp_solve_global(p, &o, r, u, v, info);
}

static fc_status gipm_direct(const fc_problem *p, const fc_options *opt, double *r, double *u,
                             double *v, fc_info *info)
{
    fc_options o = *opt;
    o.ipm.formulation = FC_IPM_PRIMAL;
    return fc_gipm_solve(p, &o, r, u, v, info);
}

static const fc_solver solvers[] = {
    {"auto", "the default: accelerated NSGS, then (3D) stick, ipm-mdp (if it fails: prox, "
             "ipm-mdp from other starts; without friction gipm / ipm), ipm / lemke (2D) / admm "
             "(rolling), then nsn-hybrid, "
             "NSGS; costed switches, shared time limit (docs/solvers.md)",
     FC_DIM(2) | FC_DIM(3) | FC_DIM(5), fc_auto_solve, fc_auto_solve_global, 0, NULL, 1, fc_auto_solve_eq, fc_auto_solve_global_eq},
    {"nsgs", "nonsmooth Gauss-Seidel over contacts, hybrid one-contact solver "
             "(Alart-Curnier Newton, projection, exact)",
     FC_DIM(2) | FC_DIM(3) | FC_DIM(5), fc_nsgs_solve, NULL, 0, NULL, 0, fc_nsgs_solve_eq, NULL},
    {"psor", "nsgs with over-relaxation (omega = nsgs.omega, default 1.5 when unset)",
     FC_DIM(2) | FC_DIM(3) | FC_DIM(5), fc_psor_solve, NULL, 0, NULL, 0, fc_psor_solve_eq, NULL},
    {"nsn-ac", "nonsmooth Newton on the Alart-Curnier function, sparse LU, line search",
     FC_DIM(2) | FC_DIM(3), fc_nsn_ac_solve, NULL, 0, NULL, 0, fc_nsn_ac_solve_eq, NULL},
    {"nsn-jm", "nonsmooth Newton on the Jean-Moreau function, sparse LU, line search",
     FC_DIM(2) | FC_DIM(3), fc_nsn_jm_solve, NULL, 0, NULL, 0, fc_nsn_jm_solve_eq, NULL},
    {"nsn-fb", "nonsmooth Newton on the Fischer-Burmeister function of the second-order cone",
     FC_DIM(2) | FC_DIM(3), fc_nsn_fb_solve, NULL, 0, NULL, 0, fc_nsn_fb_solve_eq, NULL},
    {"nsn-nm", "nonsmooth Newton on the natural map r - P_K(r - rho u_hat)",
     FC_DIM(2) | FC_DIM(3), fc_nsn_nm_solve, NULL, 0, NULL, 0, fc_nsn_nm_solve_eq, NULL},
    {"nsn-hybrid", "Alart-Curnier Newton with fallback to NSGS sweeps when it fails or stalls",
     FC_DIM(2) | FC_DIM(3), fc_nsn_hybrid_solve, NULL, 0, NULL, 0, fc_nsn_hybrid_solve_eq, NULL},
    {"ipm", "primal-dual interior point (NT scaling, Mehrotra) on the cone QP in r, "
            "fixed point on the De Saxce shift",
     FC_DIM(2) | FC_DIM(3), fc_ipm_solve, NULL, 0, NULL, 0, NULL, NULL},
    {"ipm-mdp", "interior point on the maximum-dissipation form (Dojo): normal and friction "
                "cone pairs, no De Saxce fixed point, sparse LU",
     FC_DIM(2) | FC_DIM(3), fc_ipm_mdp_solve, fc_ipm_mdp_solve_global,
     FC_IPM_MDP_DIRECT_CONTACTS, ipm_mdp_direct, 0, fc_ipm_mdp_solve_eq, fc_ipm_mdp_solve_global_eq},
    {"gipm", "interior point on the global problem's (M, H) directly (no W), "
             "quasi-definite sparse KKT",
     FC_DIM(2) | FC_DIM(3), fc_ipm_solve, fc_gipm_solve, FC_IPM_MDP_DIRECT_CONTACTS, gipm_direct, 0, NULL,
     fc_gipm_solve_eq},
    {"admm", "ADMM on the cone QP in r, Nesterov acceleration with restart, "
             "residual-balancing rho",
     FC_DIM(2) | FC_DIM(3) | FC_DIM(5), fc_admm_solve, NULL, 0, NULL, 0, fc_admm_solve_eq, NULL},
    {"gadmm", "ADMM on the global problem's (M, H) directly (no W)",
     FC_DIM(2) | FC_DIM(3) | FC_DIM(5), fc_admm_solve, fc_gadmm_solve, 0, NULL, 0, fc_admm_solve_eq, fc_gadmm_solve_eq},
    {"lemke", "2D: Lemke's pivoting method on the friction LCP (exact), sparse revised, lexicographic",
     FC_DIM(2), fc_lemke_solve, NULL, 0, NULL, 0, NULL, NULL},
    {"enum", "2D, small problems: enumeration of the friction LCP's complementary bases",
     FC_DIM(2), fc_enum_solve, NULL, 0, NULL, 0, NULL, NULL},
    {"cpg", "2D: conjugate projected gradient on the cone QP, fixed point on mu ||u_T||",
     FC_DIM(2), fc_cpg_solve, NULL, 0, NULL, 0, NULL, NULL},
    {"fpp", "fixed-point projection r = P_K(r - rho (u + g(u))), constant rho",
     FC_DIM(2) | FC_DIM(3) | FC_DIM(5), fc_fpp_solve, NULL, 0, NULL, 0, NULL, NULL},
    {"eg", "extragradient on the natural map, constant rho",
     FC_DIM(2) | FC_DIM(3) | FC_DIM(5), fc_eg_solve, NULL, 0, NULL, 0, NULL, NULL},
    {"vi-fpp", "fixed-point projection on the VI with the self-adaptive step rule",
     FC_DIM(2) | FC_DIM(3) | FC_DIM(5), fc_vi_fpp_solve, NULL, 0, NULL, 0, NULL, NULL},
    {"vi-eg", "extragradient on the VI with the self-adaptive step rule",
     FC_DIM(2) | FC_DIM(3) | FC_DIM(5), fc_vi_eg_solve, NULL, 0, NULL, 0, NULL, NULL},
    {"hp", "hyperplane projection (Solodov-Svaiter) on the VI",
     FC_DIM(2) | FC_DIM(3) | FC_DIM(5), fc_hp_solve, NULL, 0, NULL, 0, NULL, NULL},
    {"prox", "proximal point: inner solves of FC(W + alpha I, q - alpha r_k) (prox.inner_solver)",
     FC_DIM(2) | FC_DIM(3) | FC_DIM(5), fc_prox_solve, NULL, 0, NULL, 0, NULL, NULL},
    {"tfp", "Tresca fixed point: Tresca problems with mu r_N frozen, Gauss-Seidel inner",
     FC_DIM(2) | FC_DIM(3), fc_tfp_solve, NULL, 0, NULL, 0, NULL, NULL},
    {"dsfp", "De Saxce fixed point: Jacobi projection with per-contact steps",
     FC_DIM(2) | FC_DIM(3) | FC_DIM(5), fc_dsfp_solve, NULL, 0, NULL, 0, NULL, NULL},
    {"pfp", "Panagiotopoulos fixed point: normal LCP and tangential problem in turn",
     FC_DIM(2) | FC_DIM(3), fc_pfp_solve, NULL, 0, NULL, 0, NULL, NULL},
    {"aclm", "ACLM fixed point: convex problems with s = mu ||u_T|| frozen (aclm.inner_solver)",
     FC_DIM(2) | FC_DIM(3) | FC_DIM(5), fc_aclm_solve, NULL, 0, NULL, 0, NULL, NULL},
    {"apgd", "accelerated projected gradient, exact Coulomb problem through the ACLM fixed point",
     FC_DIM(2) | FC_DIM(3) | FC_DIM(5), fc_apgd_solve, NULL, 0, NULL, 0, NULL, NULL},
    {"apgd-ccp", "accelerated projected gradient on the convex relaxation only (no g(u))",
     FC_DIM(2) | FC_DIM(3) | FC_DIM(5), fc_apgd_ccp_solve, NULL, 0, NULL, 0, NULL, NULL},
    {"nsgs-v", "Gauss-Seidel on the velocity form v = M^-1 (H r + f) (global); nsgs on local",
     FC_DIM(2) | FC_DIM(3) | FC_DIM(5), fc_nsgs_v_solve, fc_nsgs_v_solve_global, 0, NULL, 0,
     fc_nsgs_solve_eq, fc_nsgs_v_solve_global_eq},
    {"nncg", "nonsmooth nonlinear conjugate gradient over Gauss-Seidel sweeps; velocity form, load-path order (global)",
     FC_DIM(2) | FC_DIM(3) | FC_DIM(5), fc_nncg_solve, fc_nncg_solve_global, 0, NULL, 0, NULL, NULL},
#ifdef FRICON_MPI
    {"dist-nsgs", "MPI: Gauss-Seidel on the velocity form over METIS domains, interface bodies "
                  "exchanged after each sweep (mpirun -np K; global, M block diagonal; local: nsgs)",
     FC_DIM(2) | FC_DIM(3) | FC_DIM(5), fc_nsgs_solve, fc_dist_nsgs_solve_global, 0, NULL, 0, NULL, NULL},
    {"dist-nncg", "MPI: dist-nsgs's sweeps with nncg's conjugate step (reduced dot products); "
                  "one rank: serial nncg in file order (global; local: nncg)",
     FC_DIM(2) | FC_DIM(3) | FC_DIM(5), fc_nncg_solve, fc_dist_nncg_solve_global, 0, NULL, 0, NULL, NULL},
    {"dist-apgd", "MPI: accelerated projected gradient on (M, H) over METIS domains, De Saxce's "
                  "operator, products and reductions distributed (global; local: apgd)",
     FC_DIM(2) | FC_DIM(3), fc_apgd_solve, fc_dist_apgd_solve_global, 0, NULL, 0, NULL, NULL},
#endif
    {"stick", "the all-sticking solution: least-norm W r = -q (one Cholesky), if inside the cones",
     FC_DIM(2) | FC_DIM(3), fc_stick_solve, NULL, 0, NULL, 0, NULL, NULL},
};

int fc_solver_count(void) { return (int)(sizeof solvers / sizeof solvers[0]); }

const fc_solver *fc_solver_at(int i)
{
    return i >= 0 && i < fc_solver_count() ? &solvers[i] : NULL;
}

const fc_solver *fc_solver_find(const char *name)
{
    for (int i = 0; i < fc_solver_count(); i++)
        if (strcmp(solvers[i].name, name) == 0) return &solvers[i];
    return NULL;
}

const char *fc_default_solver(void) { return "auto"; }
