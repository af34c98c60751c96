# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
Lockstep simulation: exact sim time, a deterministic closed loop, a pause on a missing answer.

The 2R arm tracks the circle through ROS (simulator_node + the Cartesian
impedance controller, see lockstep_circle.py) twice, as fast as the two
processes allow, while a CPU-bound process runs beside them: every period of
sim time is published once, in order, and the two runs publish identical
joint states. Without a controller the simulator pauses after the timeout and
says why.
"""

import subprocess
import sys

from diagnostic_msgs.msg import DiagnosticArray
from lockstep_circle import run_circle, URDF
import numpy as np
from ros_helpers import NodeProcess, RosClient, unique_namespace, wait_for
from std_srvs.srv import SetBool

SECONDS = 1.0


def test_closed_loop_is_exact_and_deterministic_under_load():
    hog = subprocess.Popen([sys.executable, '-c', 'while True: pass'])
    try:
        runs = [run_circle(SECONDS) for _ in range(2)]
    finally:
        hog.kill()
    for run in runs:
        steps = np.round(run['t'] * 1000.0)
        # every millisecond of sim time published once, in order: sim time is exact
        assert np.array_equal(steps, np.arange(steps.size)), steps[:10]
        assert steps[-1] == SECONDS * 1000
        rms = float(np.sqrt(np.mean(run['error'] ** 2)))
        assert rms < 2e-3, f'RMS {rms * 1e3:.3f} mm'
        print(f'lockstep circle: {SECONDS} s of sim time in {run["wall"]:.1f} s wall, '
              f'RMS {rms * 1e3:.4f} mm, max {run["error"].max() * 1e3:.4f} mm')
    # the same trajectory to the last bit, twice
    assert np.array_equal(runs[0]['q'], runs[1]['q'])


def test_missing_controller_pauses_with_the_reason():
    ns = unique_namespace()
    private = {'/clock': f'{ns}/clock', '/diagnostics': f'{ns}/diagnostics'}
    sim = NodeProcess('simulator_node', ns, {
        'urdf_path': URDF, 'lockstep': True, 'lockstep_timeout': 0.5,
        'real_time_factor': 0.0, 'diagnostics_period': 0.2}, remappings=private,
        name='simulator')
    with sim, RosClient(ns) as client:
        diagnostics = []
        client.node.create_subscription(DiagnosticArray, 'diagnostics', diagnostics.append, 10)

        def paused_by_lockstep() -> bool:
            return any('lockstep' in s.message for a in diagnostics for s in a.status)
        wait_for(paused_by_lockstep, 60.0, 'the lockstep pause on /diagnostics')
        status = next(s for a in diagnostics for s in a.status if 'lockstep' in s.message)
        values = {v.key: v.value for v in status.values}
        assert float(values['sim_time_s']) == 0.0   # it never advanced on a stale command
        assert 'paused' in status.message and '0 of 1 commands' in status.message
        # resuming without a controller pauses again, still at t = 0
        del diagnostics[:]
        answer = client.call(SetBool, 'simulator/pause', SetBool.Request(data=False))
        assert answer.success
        wait_for(paused_by_lockstep, 30.0, 'the second lockstep pause')
        assert sim.alive()
