/* Tests on the simulator's problems: one step of a scene. */
#ifndef FRICON_TEST_SCENE_H
#define FRICON_TEST_SCENE_H

#include "test.h"
#include "fricon_mbd.h"

/* The problem of the first step of scene (count bodies, nsgs with 5
 * sweeps), kept by *w (free it with fc_mbd_world_free); NULL, with a
 * failed check, when the scene or the step fails. */
static inline const fc_problem *test_scene_step(const char *scene, int count, fc_mbd_world **w)
{
    fc_mbd_scene_params par;
    fc_mbd_scene_defaults(&par);
    par.count = count;
    fc_error err;
    *w = NULL;
    if (fc_mbd_scene(scene, &par, w, &err) != FC_OK) {
        CHECK(0, "%s: %s", scene, err.msg);
        return NULL;
    }
    fc_options o;
    fc_default_options(&o);
    o.max_iter = 5;
    fc_mbd_step_info in;
    if (fc_mbd_step(*w, "nsgs", &o, &in, &err) != FC_OK) {
        CHECK(0, "%s step: %s", scene, err.msg);
        return NULL;
    }
    return fc_mbd_last_problem(*w);
}

#endif
