# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
examples/payload_demo.py in a short form, checked against physics.

The simulated Panda gets a payload its gravity compensator does not know
about, sags, and the compensator is then told (both through ``~/set_payload``),
in lockstep through ROS, once with pure gravity compensation (kd = 0) and once
with damping (kd = 10 1/s):

* the sag starts with the acceleration of the unmodelled weight:
  the tool's J qdd with qdd = -M_p^-1 (g_p - g), within 1 %;
* every command equals the core's: g(q) - M(q) kd qd of the bare model up to
  the state the compensator was told at, of the model with the payload after
  it (to 1e-9 N m), and the trajectory equals the core Simulator's run with the
  same events (to 1e-9 rad);
* told, the pure gravity compensation stops accelerating the arm but keeps its
  momentum (the kinetic energy stays within 3 %, the arm goes on moving down);
  with damping the joints come to rest, lower than where the payload appeared:
  gravity compensation has no position feedback to bring the arm back.
"""

import os
import sys

import numpy as np
import pytest
from ros_dynamics import RobotModel
from ros_helpers import unique_namespace

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                'examples'))

import payload_demo  # noqa: E402,I100

pytestmark = pytest.mark.ros

KD = 10.0
HOLD, SAG, RECOVER = 0.05, 0.15, 0.4   # s of sim time


def test_payload_sag_and_recovery_follow_the_physics():
    runs = payload_demo.run_demo((0.0, KD), HOLD, SAG, RECOVER, namespace=unique_namespace())
    bare = RobotModel.from_urdf_file(payload_demo.PANDA)
    link, mass, com, inertia = payload_demo.configured_payload()
    loaded = RobotModel.from_urdf_file(payload_demo.PANDA)
    loaded.set_payload(link, mass, com, inertia)
    for run in runs:
        kd, t, q, qd = run['kd'], run['t'], run['q'], run['qd']
        added, told = run['payload_step'], run['told_step']
        dt = payload_demo.DT
        # every period of sim time published once, in order; the events at the asked times
        assert np.array_equal(np.round(t / dt), np.arange(len(t))), t[:5]
        assert (added, told, len(t) - 1) == tuple(
            int(round(s / dt)) for s in (HOLD, HOLD + SAG, HOLD + SAG + RECOVER))
        assert np.all(q > bare.lower) and np.all(q < bare.upper)   # no limit stop engaged
        # the commands: the core's, without the payload up to the state told at, with it after
        for k, model in ((slice(0, told + 1), bare), (slice(told + 1, None), loaded)):
            expected = np.array([payload_demo.compensator_command(model, a, b, kd)
                                 for a, b in zip(q[k], qd[k])])
            assert np.abs(run['commands'][k] - expected).max() < 1e-9, (kd, k)
        core = payload_demo.core_prediction(run)
        assert np.abs(q - core['q']).max() < 1e-9 and np.abs(qd - core['qd']).max() < 1e-9
        # held exactly until the payload appeared
        assert np.abs(q[:added + 1] - payload_demo.READY).max() < 1e-12
        # the sag starts with the acceleration of the unmodelled weight
        predicted = payload_demo.sag_prediction(q[added])
        figures = payload_demo.summary(run)
        s = t[added:added + 21] - t[added]
        drop = figures['drop'][added:added + 21]
        fit = np.linalg.lstsq(np.stack([s ** 2 / 2, s ** 3], axis=1), drop, rcond=None)[0]
        assert abs(fit[0] / -predicted['acceleration'][2] - 1.0) < 0.01, fit
        print(f'kd {kd:g}: sag acceleration {fit[0]:.4f} m/s^2 (predicted '
              f'{-predicted["acceleration"][2]:.4f}); dropped {figures["drop_told"] * 1e3:.1f} '
              f'mm when told, {figures["drop_end"] * 1e3:.1f} mm {RECOVER} s later; kinetic '
              f'energy {figures["energy_told"]:.4f} -> {figures["energy_end"]:.3g} J; '
              f'{t[-1]:.2f} s of sim time in {run["wall"]:.1f} s wall')
        assert figures['drop_end'] > figures['drop_told'] > 0.005   # it never comes back up
        speed_told, speed_end = np.abs(qd[told]).max(), np.abs(qd[-1]).max()
        if kd == 0.0:
            # no unbalanced torque left: it keeps its momentum (the energy up to the hold of
            # the command over each period), it does not stop
            assert abs(figures['energy_end'] / figures['energy_told'] - 1.0) < 0.03
            assert speed_end > 0.5 * speed_told
        else:
            assert speed_end < 0.05 * speed_told   # exp(-kd t): 1.8 % after 0.4 s
