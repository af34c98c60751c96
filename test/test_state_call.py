# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""The call path into the single-state kernels: the C extension and its ctypes fallback."""

import copy
import os
import pickle
import re
import subprocess
import sys
import threading

import numpy as np
import pytest

from robot_data import example_urdf
from ros_dynamics import RobotModel
from ros_dynamics.kernels import aba, crba, jacobian, rnea
from ros_dynamics.runtime import statecall
from ros_dynamics.runtime.jit import ensure_compiled
from ros_dynamics.runtime.statecall import CtypesStateCall

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(__file__)), 'benchmarks'))
from chains import serial_chain_urdf  # noqa: E402, I100

ROBOTS = [('panda_description/urdf/panda.urdf', True),    # the finger's mimic: dense FD
          ('panda_description/urdf/panda.urdf', False),
          ('ur_description/urdf/ur5_robot.urdf', True),
          ('talos_data/robots/talos_reduced.urdf', True)]


def entries(robot):
    """Return (name, entry, inputs, output shape, the public method) of each state entry."""
    n = robot.dof
    fd = aba.forward_dynamics_dense_entry if robot.has_mimic else aba.forward_dynamics_entry
    return [('inverse_dynamics', rnea.inverse_dynamics_entry, 3, (n,), robot.inverse_dynamics),
            ('gravity_torques', rnea.gravity_torques_entry, 1, (n,), robot.gravity_torques),
            ('mass_matrix', crba.mass_matrix_entry, 1, (n, n), robot.mass_matrix),
            ('forward_dynamics', fd, 3, (n,), robot.forward_dynamics)]


def test_the_c_extension_is_built():
    """The build compiles _statecall (optional for pip users, so check it did not fall back)."""
    from ros_dynamics.runtime import _statecall
    assert statecall.StateCall is _statecall.StateCall


@pytest.mark.parametrize('path, mimic', ROBOTS)
def test_extension_and_ctypes_fallback_agree(path, mimic):
    robot = RobotModel.from_urdf_file(example_urdf(path), mimic=mimic)
    rng = np.random.default_rng(3)
    states = [rng.uniform(-1.0, 1.0, robot.dof) for _ in range(3)]
    for name, entry, inputs, shape, method in entries(robot):
        ensure_compiled(entry)
        calls = [kind(entry.address, robot._model, robot.dof, inputs, shape,
                      robot._no_wrench_batch)       # extra: zero body forces (1, nb, 6)
                 for kind in (statecall.StateCall, CtypesStateCall)]
        expected = method(*states[:inputs])
        for call in calls:
            out = call(*states[:inputs])
            np.testing.assert_array_equal(out, expected, err_msg=name)
            assert out.shape == shape and out.flags.c_contiguous and out.flags.writeable
            assert call(*states[:inputs]) is not out            # a new array every call
            into = np.full(shape, np.nan)
            assert call.into(into, *states[:inputs]) == 0
            np.testing.assert_array_equal(into, expected)
            # anything but exact float64 C-contiguous vectors of dof: None (the general path)
            q = states[0]
            for bad in (list(q), q.astype(np.float32), np.repeat(q, 2)[::2], q[:-1],
                        np.append(q, 0.0), q.astype('>f8'), q.reshape(1, -1),
                        np.where(np.arange(robot.dof) == 0, np.nan, q)):
                assert call(bad, *states[1:inputs]) is None, (name, bad)
            assert call(*states[:inputs], q) is None                 # too many
            with pytest.raises(TypeError, match='out'):
                call.into(np.empty(shape)[::-1] if len(shape) == 1 else np.empty(shape).T,
                          *states[:inputs])
            with pytest.raises(TypeError, match='state argument 0'):
                call.into(np.empty(shape), q[:-1], *states[1:inputs])


def test_bound_calls_follow_gravity_pickling_and_copies():
    robot = RobotModel.from_urdf_file(example_urdf('ur_description/urdf/ur5_robot.urdf'))
    q = np.linspace(-1.0, 1.0, robot.dof)
    held = robot.gravity_torques(q)
    assert isinstance(robot._gravity_call, statecall.StateCall)     # bound by the first call
    for clone in (pickle.loads(pickle.dumps(robot)), copy.deepcopy(robot), copy.copy(robot)):
        np.testing.assert_array_equal(clone.gravity_torques(q), held)
        np.testing.assert_array_equal(clone.mass_matrix(q), robot.mass_matrix(q))
    robot.gravity = (0.0, 0.0, -2 * 9.81)    # rebinds: the old calls held the old model
    np.testing.assert_allclose(robot.gravity_torques(q), 2 * held, rtol=1e-12)


def test_large_models_run_in_threads():
    """Calls on models above 64 bodies release the GIL; results are those of serial calls."""
    robot = RobotModel.from_urdf_string(serial_chain_urdf(200))
    rng = np.random.default_rng(5)
    states = [rng.uniform(-1.0, 1.0, (3, robot.dof)) for _ in range(8)]
    expected = [robot.inverse_dynamics(*s) for s in states]
    results = [None] * len(states)

    def work(k):
        for _ in range(20):
            results[k] = robot.inverse_dynamics(*states[k])

    threads = [threading.Thread(target=work, args=(k,)) for k in range(len(states))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for got, want in zip(results, expected):
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize('path, mimic', ROBOTS[1:3])
def test_jacobian_calls_agree(path, mimic):
    """The per-link Jacobian entry, through the extension and ctypes, at every link."""
    robot = RobotModel.from_urdf_file(example_urdf(path), mimic=mimic)
    q = np.random.default_rng(4).uniform(-1.0, 1.0, robot.dof)
    ensure_compiled(jacobian.jacobian_entry)
    for link in robot.link_names:
        expected = robot.jacobian(q, link)
        assert robot.jacobian(q, link) is not expected          # the bound fast path
        np.testing.assert_array_equal(robot.link_pose(q, link)[:3, 3],
                                      robot.link_pose(list(q), link)[:3, 3])
        np.testing.assert_array_equal(robot.jacobian(q, link), expected)
        body = robot._arrays.link_body[link]
        frame = np.append(robot._arrays.link_offset[link][0], float(body))
        for kind in (statecall.StateCall, CtypesStateCall):
            call = kind(jacobian.jacobian_entry.address, robot._model, robot.dof, 1,
                        (6, robot.dof), frame)
            np.testing.assert_array_equal(call(q), expected, err_msg=link)


def test_without_the_extension_the_ctypes_fallback_serves(tmp_path):
    """A package installed without a compiler: same results through ctypes."""
    robot_path = example_urdf('ur_description/urdf/ur5_robot.urdf')
    robot = RobotModel.from_urdf_file(robot_path)
    q = np.linspace(-1.0, 1.0, robot.dof)
    expected = np.concatenate([robot.inverse_dynamics(q, q, q), robot.gravity_torques(q),
                               robot.mass_matrix(q).ravel(), robot.forward_dynamics(q, q, q),
                               robot.jacobian(q, 'tool0').ravel()])
    code = ('import sys\n'
            "sys.modules['ros_dynamics.runtime._statecall'] = None   # the import fails\n"
            'import numpy as np\n'
            'from ros_dynamics import RobotModel\nfrom ros_dynamics.runtime import statecall\n'
            'assert statecall.StateCall is statecall.CtypesStateCall\n'
            f'robot = RobotModel.from_urdf_file({robot_path!r})\n'
            'q = np.linspace(-1.0, 1.0, robot.dof)\n'
            'for _ in range(2):   # the general path binds, then the fast path\n'
            '    out = np.concatenate([robot.inverse_dynamics(q, q, q), '
            'robot.gravity_torques(q), robot.mass_matrix(q).ravel(), '
            "robot.forward_dynamics(q, q, q), robot.jacobian(q, 'tool0').ravel()])\n"
            'np.save(sys.argv[1], out)\n')
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env = dict(os.environ, PYTHONPATH=root, ROS_DYNAMICS_PRECOMPILE='0')
    subprocess.run([sys.executable, '-c', code, str(tmp_path / 'out.npy')], env=env,
                   check=True, timeout=600)
    np.testing.assert_array_equal(np.load(tmp_path / 'out.npy'), expected)


@pytest.mark.parametrize('link', ['nowhere', ['panda_hand'], None, 3])
def test_link_quantities_name_a_bad_link(link):
    """Unknown, unhashable or non-string links: a ValueError naming the link, bound or not."""
    robot = RobotModel.from_urdf_file(example_urdf('panda_description/urdf/panda.urdf'))
    q = np.zeros(robot.dof)
    robot.jacobian(q, 'panda_hand')          # binds the per-link calls of another link
    robot.jacobian_dot_qd(q, q, 'panda_hand')
    robot.link_pose(q, 'panda_hand')
    for call in (lambda: robot.jacobian(q, link), lambda: robot.jacobian(q, link, 'local'),
                 lambda: robot.link_pose(q, link), lambda: robot.jacobian_dot_qd(q, q, link)):
        with pytest.raises(ValueError, match=re.escape(f'link {link!r} is not a link of')):
            call()


FIXED_ONLY = """<robot name="fixed_only">
  <link name="base"><inertial><mass value="1"/>
    <inertia ixx="1" ixy="0" ixz="0" iyy="1" iyz="0" izz="1"/></inertial></link>
  <link name="tool"/>
  <joint name="mount" type="fixed"><parent link="base"/><child link="tool"/>
    <origin xyz="0 0 0.5"/></joint>
</robot>"""


def test_a_robot_without_joints():
    """A model with dof = 0 through the state calls (bound on the second round)."""
    robot = RobotModel.from_urdf_string(FIXED_ONLY)
    robot.warm_up()
    z = np.zeros(0)
    for _ in range(2):
        assert robot.inverse_dynamics(z, z, z).shape == (0,)
        assert robot.gravity_torques(z).shape == (0,)
        assert robot.mass_matrix(z).shape == (0, 0)
        assert robot.forward_dynamics(z, z, z).shape == (0,)
        assert robot.jacobian(z, 'tool').shape == (6, 0)
        np.testing.assert_array_equal(robot.link_pose(z, 'tool')[:3, 3], [0.0, 0.0, 0.5])
