"""The simulator from Python: scenes, custom worlds, the bodies' state,
each step's problem (solved again through fricon.solve)."""
import numpy as np
import pytest

import fricon
import spec


def test_incline_sticks():
    s = fricon.Scene("incline")  # box on a 25-degree plane, mu 0.8: sticks
    x0 = s.positions.copy()
    infos = fricon.simulate(s, 50)
    assert len(infos) == 50 and s.time == pytest.approx(50 * s.dt)
    assert all(i.status == "converged" for i in infos if i.ncontacts)
    assert np.linalg.norm(s.positions[1] - x0[1]) < 1e-2
    assert s.velocities.shape == (s.nbodies, 3) and s.orientations.shape == (s.nbodies, 4)


def test_slide_moves():
    s = fricon.Scene("slide")
    fricon.simulate(s, 50, tol=1e-10)
    assert np.linalg.norm(s.velocities[1]) > 0.1


def test_custom_world_and_problems():
    s = fricon.Scene(dt=1e-2)
    s.add_plane((0, 0, 1), (0, 0, 0))
    a = s.add_sphere(0.1, (0, 0, 0.1))
    b = s.add_box((0.1, 0.1, 0.1), (0.5, 0, 0.1))
    s.set_mu(b, 0.3)
    s.set_velocity(a, (1.0, 0, 0))
    seen = []
    infos = fricon.simulate(s, 10, solver="nsgs", keep_problems=True,
                            callback=lambda sc, info: seen.append(sc.positions[a, 0]))
    assert len(seen) == 10 and seen[-1] > 0.0
    bodies = s.bodies()
    assert list(bodies["shape"]) == [2, 0, 1] and bodies["fixed"][0]
    last = infos[-1]
    assert last.ncontacts == len(s.contacts()["gap"]) > 0
    p = last.problem
    assert isinstance(p, fricon.GlobalProblem) and p.nc == last.ncontacts
    # the step's problem solved again: a solution by the independent measure
    res = fricon.solve(p)
    e, dyn = spec.global_error(p, res.r, res.v)
    assert res.converged and e <= 1e-8 * (1 + 1e-6) and dyn <= 1e-8


def test_pile_step_problem():
    s = fricon.Scene("pile", count=60, seed=3)
    infos = fricon.simulate(s, 40, tol=1e-8)
    assert s.nbodies >= 60
    p = s.problem
    if p is None:
        pytest.skip("no contact at the last step")
    assert p.nc == infos[-1].ncontacts
    built = s.build_problem()
    assert built is not None and built.kind == "global"
    loc = s.local_problem
    if loc is not None:
        assert loc.kind == "local"


def test_stop_from_callback():
    infos = fricon.simulate("incline", 100, callback=lambda sc, info: info.step >= 3)
    assert len(infos) == 3
