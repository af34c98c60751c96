# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""The README's quick start as a newcomer reads it: its commands exist and its code runs."""

import os
import re

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def readme() -> str:
    with open(os.path.join(ROOT, 'README.md'), encoding='utf-8') as stream:
        return stream.read()


def test_the_make_targets_it_names_exist():
    named = set(re.findall(r'(?:^|`)make (\w+)', readme(), re.M))
    assert {'run', 'test', 'bench', 'fuzz'} <= named
    with open(os.path.join(ROOT, 'Makefile'), encoding='utf-8') as stream:
        targets = set(re.findall(r'^([\w-]+):', stream.read(), re.M))
    assert named <= targets, f'README names make targets the Makefile lacks: {named - targets}'


def python_blocks() -> list:
    """Return the README's Python code blocks, in order."""
    return re.findall(r'```python\n(.*?)```', readme(), re.S)


def test_every_python_block_runs(monkeypatch):
    """Each Python block runs from the repository's root, as the README says."""
    assert python_blocks(), 'the README lost its Python example'
    monkeypatch.chdir(ROOT)   # they load urdf/panda_arm.urdf by a relative path
    for number, block in enumerate(python_blocks(), 1):
        exec(compile(block, f'README.md, Python block {number}', 'exec'), {})


def test_the_core_example_does_what_its_comments_say(monkeypatch, capsys):
    """
    The first block: forward dynamics inverts inverse dynamics, and g holds the arm still.

    Held by g(q) from rest at q, the simulated arm stays at q: the residual
    acceleration M^-1 (g - g) is float64 rounding, 1.7e-14 rad/s^2 with
    |g| = 22 N m, and after the 1000 RK4 steps of 1 ms the arm had moved
    2.3e-15 rad. The bound, 1e-9 rad, is 1e5 times that and 1e9 times
    smaller than what the arm does when the torques are those of another
    pose: held by g(0) from the simulator's default start (zeros clamped into
    the limits, panda_joint4 = -0.0698), as the README once had it, it moved
    3.7 rad within the same second, which this test checks too.
    """
    monkeypatch.chdir(ROOT)
    namespace = {}
    exec(compile(python_blocks()[0], 'README.md', 'exec'), namespace)
    robot, np, sim, q, g = (namespace[name] for name in ('robot', 'np', 'sim', 'q', 'g'))
    assert np.allclose(namespace['qdd'], np.ones(robot.dof), atol=1e-9)   # FD after ID
    lower, upper = robot.lower, robot.upper
    assert np.all((lower <= q) & (q <= upper))               # "within the joint limits"
    assert np.array_equal(g, robot.gravity_torques(q))
    assert abs(sim.t - 1.0) < 1e-9                           # "1 s"
    moved = np.abs(sim.q - q).max()
    assert moved < 1e-9 and np.abs(sim.qd).max() < 1e-9      # "has not moved"
    assert float(capsys.readouterr().out.split()[-1]) == moved
    assert namespace['qs'].shape == (256, 1001, robot.dof)
    # the same second from the simulator's default start, held by the torques of q = 0
    Simulator = namespace['Simulator']
    released = Simulator(robot, dt=1e-3)
    start = released.q.copy()
    assert start[3] == upper[3] != 0.0                        # clamped into the limits
    released.set_effort(robot.gravity_torques(np.zeros(robot.dof)))
    released.step(1000)
    assert np.abs(released.q - start).max() > 0.1


@pytest.mark.parametrize('command', ['pip install -e .', 'make run', 'make test'])
def test_the_commands_it_shows_are_in_its_code_blocks(command):
    shown = '\n'.join(re.findall(r'```bash\n(.*?)```', readme(), re.S))
    assert command in shown
