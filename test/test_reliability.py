# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
Regression tests for hostile input: each reproduces one defect found by fuzzing.

Loading: a description without links, xacro instead of URDF, unencodable
text and values whose products overflow double precision are refused with a
URDFError naming the element. Calls: every public entry refuses complex,
object, text and masked arrays with TypeError and NaN/Inf with ValueError,
accepts any array numpy converts losslessly (unaligned, strided, other
float widths), returns empty results for empty batches and robots without
joints, and refuses a batch whose result cannot fit in memory.
"""

import inspect
import os

import numpy as np
import pytest

from robot_data import example_urdf
from ros_dynamics.exceptions import BatchTooLargeError, URDFError
from ros_dynamics.model.operational_space import operational_space
from ros_dynamics.model.robot import RobotModel

HERE = os.path.dirname(os.path.abspath(__file__))
PANDA = os.path.join(HERE, '..', 'urdf', 'panda_arm.urdf')

ARM = """<robot name="arm">
  <link name="base"/>
  <link name="upper"><inertial><origin xyz="0 0 0.5" rpy="0 0 0"/><mass value="{mass}"/>
    <inertia ixx="0.1" ixy="0" ixz="0" iyy="0.1" iyz="{iyz}" izz="0.1"/></inertial></link>
  <link name="fore"><inertial><mass value="1"/>
    <inertia ixx="0.1" ixy="0" ixz="0" iyy="0.1" iyz="0" izz="0.1"/></inertial></link>
  <joint name="shoulder" type="revolute"><parent link="base"/><child link="upper"/>
    <axis xyz="{axis}"/><limit lower="-3" upper="3" effort="10" velocity="1"/></joint>
  <joint name="elbow" type="revolute"><parent link="upper"/><child link="fore"/>
    <origin xyz="{origin}"/><axis xyz="0 1 0"/>
    <limit lower="-3" upper="3" effort="10" velocity="1"/>
    <mimic joint="shoulder" multiplier="{multiplier}"/></joint>
</robot>"""
SANE = {'mass': '2', 'iyz': '0', 'axis': '0 1 0', 'origin': '0 0 1', 'multiplier': '1'}


def arm(**changes) -> str:
    """Return the two-link arm URDF with some attribute values replaced."""
    return ARM.format(**{**SANE, **changes})


@pytest.fixture(scope='module')
def panda() -> RobotModel:
    return RobotModel.from_urdf_file(PANDA)


# ---------------------------------------------------------------------------- loading
@pytest.mark.parametrize('xml', ['<robot name="x"/>', '<robot name="x"><!-- c --></robot>'])
def test_a_robot_without_links_is_a_urdf_error(xml):
    with pytest.raises(URDFError, match='has no <link>'):
        RobotModel.from_urdf_string(xml)


def test_example_robot_data_ur3_without_links_is_a_urdf_error():
    with pytest.raises(URDFError, match='has no <link>'):
        RobotModel.from_urdf_file(example_urdf('ur_description/urdf/ur3.urdf'))


def test_warm_up_never_raises_on_a_loadable_model():
    for xml in ('<robot name="x"><link name="a"/></robot>', arm()):
        RobotModel.from_urdf_string(xml).warm_up()
    RobotModel.from_urdf_file(PANDA).warm_up()


@pytest.mark.parametrize('change, element', [
    ({'mass': '1e308'}, "link 'upper': mass"),
    ({'iyz': '1e308'}, "link 'upper': inertia"),
    ({'origin': '1e308 0 0'}, "joint 'elbow': <origin xyz>"),
    ({'multiplier': '1e308'}, "joint 'elbow': mimic"),
])
def test_values_whose_products_overflow_are_refused(change, element):
    with pytest.raises(URDFError) as error:
        RobotModel.from_urdf_string(arm(**change))
    assert element in str(error.value) and 'double precision' in str(error.value)


def test_a_huge_axis_is_normalised_by_scaling_first():
    robot = RobotModel.from_urdf_string(arm(axis='1e200 0 1e200'))
    reference = RobotModel.from_urdf_string(arm(axis='1 0 1'))
    q = np.array([0.3, 0.0])[:robot.dof]
    assert np.allclose(robot.jacobian(q, 'fore'), reference.jacobian(q, 'fore'))
    assert np.abs(robot.jacobian(q, 'fore')).max() > 0.1


@pytest.mark.filterwarnings('ignore::ros_dynamics.exceptions.URDFWarning')
def test_the_largest_accepted_values_give_finite_results():
    robot = RobotModel.from_urdf_string(arm(mass='1e30', iyz='1e29', origin='1e30 0 0',
                                            multiplier='1e30'))
    rng = np.random.default_rng(3)
    for _ in range(5):
        q, qd, qdd = (rng.uniform(-1e3, 1e3, robot.dof) for _ in range(3))
        for value in (robot.inverse_dynamics(q, qd, qdd), robot.mass_matrix(q),
                      robot.coriolis_matrix(q, qd), robot.kinetic_energy(q, qd),
                      robot.potential_energy(q), robot.jacobian(q, 'fore')):
            assert np.all(np.isfinite(value))


def test_a_lone_surrogate_is_a_urdf_error():
    with pytest.raises(URDFError, match='not valid Unicode'):
        RobotModel.from_urdf_string('<robot name="x"><link name="a\ud800"/></robot>')


@pytest.mark.parametrize('xml', [
    '<robot name="r" xmlns:xacro="http://www.ros.org/wiki/xacro">'
    '<xacro:macro name="m"/><link name="a"/></robot>',
    '<robot name="r"><xacro:include filename="arm.xacro"/></robot>',
    '<robot name="r"><link name="a"/><joint name="j" type="fixed"><parent link="a"/>'
    '<child link="${prefix}b"/></joint></robot>',
])
def test_xacro_is_detected_and_the_error_says_to_run_xacro(xml):
    with pytest.raises(URDFError, match='xacro'):
        RobotModel.from_urdf_string(xml)


def test_a_xacro_file_says_to_run_xacro(tmp_path):
    path = tmp_path / 'robot.urdf.xacro'
    path.write_text('<robot name="r" xmlns:xacro="http://www.ros.org/wiki/xacro">'
                    '<xacro:property name="l" value="1"/></robot>')
    with pytest.raises(URDFError, match='xacro robot.urdf.xacro > robot.urdf'):
        RobotModel.from_urdf_file(str(path))


# ---------------------------------------------------------------------------- calls
def test_a_robot_without_joints_gives_empty_batches_and_wrenches():
    r0 = RobotModel.from_urdf_string('<robot name="x"><link name="a"/></robot>')
    empty = np.zeros((3, 0))
    assert r0.inverse_dynamics(empty, empty, empty).shape == (3, 0)
    assert r0.gravity_torques(empty).shape == (3, 0)
    assert r0.forward_dynamics(empty, empty, empty).shape == (3, 0)
    assert r0.mass_matrix(empty).shape == (3, 0, 0)
    assert r0.coriolis_matrix(empty, empty).shape == (3, 0, 0)
    assert r0.inverse_dynamics([], [], [], {'a': [0, 0, 1, 0, 0, 0]}).shape == (0,)
    assert r0.inverse_dynamics(empty, empty, empty, {'a': [0, 0, 1, 0, 0, 0]}).shape == (3, 0)
    assert r0.jacobian(empty, 'a').shape == (3, 6, 0)
    many = np.broadcast_to(np.zeros(0), (10 ** 12, 0))   # a batch of nothing returns at once
    assert r0.inverse_dynamics(many, many, many, {'a': [0, 0, 1, 0, 0, 0]}).shape == many.shape
    assert r0.mass_matrix(many).shape == (10 ** 12, 0, 0)


def test_an_unaligned_array_works_on_the_single_state_path(panda):
    q = np.ndarray((7,), np.float64, buffer=bytearray(57), offset=1)
    q[:] = np.linspace(-1.0, 1.0, 7)
    assert not q.flags.aligned
    assert np.array_equal(panda.gravity_torques(q), panda.gravity_torques(q.copy()))
    copy = q.copy()
    assert np.array_equal(panda.inverse_dynamics(q, q, q),
                          panda.inverse_dynamics(copy, copy, copy))
    assert np.array_equal(panda.jacobian(q, 'panda_link7'), panda.jacobian(copy, 'panda_link7'))


@pytest.mark.parametrize('convert', [
    lambda q: q.astype(np.float32).astype(np.float64)[::-1][::-1],
    lambda q: np.repeat(q, 2)[::2],                       # strided
    lambda q: q.astype('>f8'),                            # byte-swapped
    lambda q: q.tolist(),
    lambda q: np.round(q).astype(np.int64),
    lambda q: q.astype(np.float32),
    lambda q: np.ma.masked_array(q, mask=False),          # nothing masked: the values
])
def test_losslessly_convertible_arrays_give_the_float64_result(panda, convert):
    q = np.linspace(-1.0, 1.0, 7)
    given = convert(q)
    expected = np.asarray(np.asarray(given), dtype=np.float64).copy()
    assert np.array_equal(panda.gravity_torques(given), panda.gravity_torques(expected))
    assert np.array_equal(panda.mass_matrix(given), panda.mass_matrix(expected))


@pytest.mark.parametrize('value, kind', [
    (np.full(7, 0.1) + 1j, 'complex'),
    (np.array([0.1] * 7, dtype=object), 'object'),
    (np.array(['1'] * 7), 'str'),
    (np.array([b'1'] * 7), 'bytes'),
    (np.arange(7).astype('datetime64[s]'), 'datetime'),
    (np.arange(7).astype('timedelta64[s]'), 'timedelta'),
    (np.ma.masked_array(np.zeros(7), mask=[1, 0, 0, 0, 0, 0, 0]), 'masked'),
    ([None] * 7, 'object'),
])
def test_data_that_is_not_real_numbers_is_a_type_error_naming_the_argument(panda, value, kind):
    zero = np.zeros(7)
    calls = [lambda: panda.gravity_torques(value),
             lambda: panda.inverse_dynamics(zero, value, zero),
             lambda: panda.jacobian(value, 'panda_link7'),
             lambda: panda.all_joint_positions(value),
             lambda: panda.operational_space(zero, value, 'panda_link7')]
    for call in calls:
        with pytest.raises(TypeError, match=f'(q|qd): .*{kind}'):
            call()


def public_calls(robot, q, qd):
    """Return (name, call) for every public state method of a robot, q and qd as given."""
    z = np.zeros(robot.dof)
    link = robot.link_names[-1]
    return [
        ('inverse_dynamics', lambda: robot.inverse_dynamics(q, qd, z)),
        ('inverse_dynamics+wrench', lambda: robot.inverse_dynamics(q, qd, z, {link: [1] * 6})),
        ('forward_dynamics', lambda: robot.forward_dynamics(q, qd, z)),
        ('forward_dynamics+wrench', lambda: robot.forward_dynamics(q, qd, z, {link: [1] * 6})),
        ('gravity_torques', lambda: robot.gravity_torques(q)),
        ('bias_torques', lambda: robot.bias_torques(q, qd)),
        ('mass_matrix', lambda: robot.mass_matrix(q)),
        ('coriolis_matrix', lambda: robot.coriolis_matrix(q, qd)),
        ('kinetic_energy', lambda: robot.kinetic_energy(q, qd)),
        ('potential_energy', lambda: robot.potential_energy(q)),
        ('all_joint_positions', lambda: robot.all_joint_positions(q)),
        ('link_pose', lambda: robot.link_pose(q, link)),
        ('jacobian', lambda: robot.jacobian(q, link)),
        ('jacobian local', lambda: robot.jacobian(q, link, 'local')),
        ('jacobian_dot_qd', lambda: robot.jacobian_dot_qd(q, qd, link)),
        ('operational_space', lambda: robot.operational_space(q, qd, link)),
    ]


@pytest.mark.parametrize('bad', [np.nan, np.inf, -np.inf])
def test_every_public_entry_refuses_non_finite_input(panda, bad):
    q = np.full(7, 0.1)
    q[2] = bad
    for argument in ('q', 'qd'):
        state = (q, np.zeros(7)) if argument == 'q' else (np.zeros(7), q)
        for name, call in public_calls(panda, *state):
            if argument == 'qd' and name in ('gravity_torques', 'mass_matrix', 'link_pose',
                                             'potential_energy', 'all_joint_positions',
                                             'jacobian', 'jacobian local'):
                continue
            with pytest.raises(ValueError, match=f'{argument}: .*NaN or Inf'):
                call()
    with pytest.raises(ValueError, match=r'external_wrenches\[.*finite'):
        panda.inverse_dynamics(np.zeros(7), np.zeros(7), np.zeros(7), {'panda_link7': q[:6]})


def test_every_batch_method_returns_an_empty_result_for_no_states(panda):
    empty = np.zeros((0, 7))
    link = 'panda_link7'
    shapes = {
        'inverse_dynamics': (panda.inverse_dynamics(empty, empty, empty), (0, 7)),
        'inverse_dynamics+wrench': (panda.inverse_dynamics(empty, empty, empty,
                                                           {link: [1] * 6}), (0, 7)),
        'forward_dynamics': (panda.forward_dynamics(empty, empty, empty), (0, 7)),
        'gravity_torques': (panda.gravity_torques(empty), (0, 7)),
        'bias_torques': (panda.bias_torques(empty, empty), (0, 7)),
        'mass_matrix': (panda.mass_matrix(empty), (0, 7, 7)),
        'coriolis_matrix': (panda.coriolis_matrix(empty, empty), (0, 7, 7)),
        'kinetic_energy': (panda.kinetic_energy(empty, empty), (0,)),
        'potential_energy': (panda.potential_energy(empty), (0,)),
        'all_joint_positions': (panda.all_joint_positions(empty), (0, 7)),
        'jacobian': (panda.jacobian(empty, link), (0, 6, 7)),
    }
    for name, (value, shape) in shapes.items():
        assert value.shape == shape and value.dtype == np.float64, name


def test_batch_wrenches_equal_the_single_state_results(panda):
    rng = np.random.default_rng(5)
    q, qd, qdd = (rng.uniform(-1.5, 1.5, (40, 7)) for _ in range(3))
    wrenches = {'panda_link7': [1.0, -2.0, 3.0, 0.1, 0.2, -0.3], 'panda_link4': [0, 0, 5, 0, 1, 0],
                'panda_link0': [9.0] * 6}
    tau = panda.inverse_dynamics(q, qd, qdd, wrenches)
    qdd_back = panda.forward_dynamics(q, qd, tau, wrenches)
    assert np.allclose(qdd_back, qdd, atol=1e-8)
    for k in (0, 17, 39):
        assert np.allclose(tau[k], panda.inverse_dynamics(q[k], qd[k], qdd[k], wrenches),
                           atol=1e-12)
        # J^T w: the wrench enters as minus the transposed Jacobian (world-aligned at the link)
        free = panda.inverse_dynamics(q[k], qd[k], qdd[k])
        expected = free - sum(panda.jacobian(q[k], link).T @ np.asarray(w, dtype=float)
                              for link, w in wrenches.items() if link != 'panda_link0')
        assert np.allclose(tau[k], expected, atol=1e-10)


def test_a_batch_too_large_for_memory_is_refused_up_front(panda):
    huge = np.broadcast_to(np.zeros(7), (10 ** 12, 7))   # a view: 56 TB if copied
    with pytest.raises(BatchTooLargeError, match=r'\(1000000000000, 7\)'):
        panda.mass_matrix(huge)
    with pytest.raises(MemoryError, match='split the batch'):
        panda.inverse_dynamics(huge, huge, huge)


# ---------------------------------------------------------------------------- API points
def test_operational_space_shows_its_arguments():
    method = inspect.signature(RobotModel.operational_space).parameters
    function = inspect.signature(operational_space).parameters
    assert list(method)[1:] == list(function)[1:]
    assert all(method[n].default == function[n].default for n in list(function)[1:])


def test_jacobian_takes_batches(panda):
    q = np.random.default_rng(2).uniform(-1.0, 1.0, (5, 7))
    for frame in ('world_aligned', 'local', 'world'):
        jac = panda.jacobian(q, 'panda_link7', frame)
        assert jac.shape == (5, 6, 7)
        for k in range(5):
            assert np.array_equal(jac[k], panda.jacobian(q[k], 'panda_link7', frame))


def test_unknown_names_get_did_you_mean_suggestions(panda):
    with pytest.raises(ValueError, match="did you mean 'panda_link7'"):
        panda.jacobian(np.zeros(7), 'panda_lnk7')
    with pytest.raises(ValueError, match="did you mean 'panda_joint3'"):
        panda.joint_index('panda_joint_3')
    with pytest.raises(ValueError) as error:
        panda.link_pose(np.zeros(7), 'gripper')
    assert 'did you mean' not in str(error.value)


def test_control_and_simulation_entries_refuse_bad_numbers_by_name(panda):
    from ros_dynamics.control.impedance import CartesianImpedance, computed_torque
    from ros_dynamics.simulation.simulator import simulate, Simulator
    z, nan = np.zeros(7), np.full(7, np.nan)
    for position, name in enumerate(('q', 'qd', 'q_ref', 'qd_ref', 'qdd_ref', 'kp', 'kd')):
        arguments = [z] * 7
        arguments[position] = nan
        with pytest.raises(ValueError, match=f'^{name}: contains NaN'):
            computed_torque(panda, *arguments)
        arguments[position] = z + 1j
        with pytest.raises(TypeError, match=f'^{name}: .*complex'):
            computed_torque(panda, *arguments)
    controller = CartesianImpedance(panda, 'panda_link7', [100.0] * 6, [20.0] * 6)
    target = np.eye(4)
    target[0, 3] = np.inf
    with pytest.raises(ValueError, match='target: contains NaN or Inf'):
        controller.torque(z, z, target)
    with pytest.raises(ValueError, match='target_twist: contains NaN or Inf'):
        controller.torque(z, z, np.eye(4), target_twist=nan[:6])
    with pytest.raises(TypeError, match='kp: .*complex'):
        CartesianImpedance(panda, 'panda_link7', np.ones(6) + 1j, np.ones(6))
    space = panda.operational_space(z, z, 'panda_link7')
    with pytest.raises(TypeError, match='force: .*complex'):
        space.joint_torque(np.ones(6) + 1j)
    simulator = Simulator(panda)
    with pytest.raises(TypeError, match='effort: .*complex'):
        simulator.set_effort(z + 1j)
    with pytest.raises(ValueError, match='finite'):
        simulator.set_wrenches({'panda_link7': nan[:6]})
    with pytest.raises(ValueError, match='q0'):
        Simulator(panda, q0=nan)
    with pytest.raises(ValueError, match='t_final'):
        simulate(panda, z, z, float('nan'))


def test_operational_space_refuses_a_result_that_overflowed():
    robot = RobotModel.from_urdf_file(os.path.join(HERE, '..', 'urdf', 'planar_2r.urdf'))
    q = np.array([0.3, 0.4])
    with pytest.raises(ValueError, match='overflowed'):
        robot.operational_space(q, np.array([1e300, -1e300]), 'tool')
