# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
Floating, planar and ball joints in the Simulator and ``rollout``: physics over 10 s, MuJoCo.

The compiled q (+) v (ros_dynamics/kernels/manifold.py) against an independent numpy oracle
(test/configuration_oracle.py) and Pinocchio (test_floating_base.py); the integrators'
steps against their definition; then closed forms over 10 s of simulated time at 1 ms RK4,
no damping, friction or limits: in zero gravity the linear and angular momentum (world
axes, angular about the centre of mass: ``robot.centroidal_momentum``) stay constant; under
gravity the centre of mass follows c0 + c'0 t + g t^2 / 2 and the angular momentum about it
stays constant (gravity acts at the centre of mass); the energy is conserved. A ball-joint
pendulum keeps its angular momentum about the vertical through the pivot, TIAGo on its
planar base its horizontal linear momentum and its angular momentum about the vertical
(the planar joint's constraint wrench has a vertical force and horizontal moments only).
And a tumbling free body against MuJoCo's RK4 (free joint: q = (x y z qw qx qy qz),
v = (world linear velocity, body angular velocity): converted).
"""

import warnings

from configuration_oracle import integrate as oracle_integrate
import numpy as np
import pytest
from robot_data import example_urdf
from ros_dynamics import RobotModel, URDFWarning
from ros_dynamics.rollouts import rollout
from ros_dynamics.simulation.simulator import simulate, Simulator
from test_floating_base import BALL   # a ball joint and an elbow, also built in Pinocchio there

OFF = {'damping': False, 'friction': False, 'limits': False}
SECONDS, DT, CHUNK = 10.0, 1e-3, 50   # CHUNK steps a call (the C callback's path)
# Tolerances over 10 s at 1 ms RK4 (measured 2026-11-27 in brackets): RKMK4's global error is
# O(dt^4), ~1e-12 of a momentum of order 1 [2e-13 .. 3e-11], and its energy error O(dt^4) too
# [5e-14 .. 2e-10 J of 1-360 J]; the bounds leave 100x for other CPUs' rounding and are still
# 100x below the second-order scheme without the Lie brackets (1e-7 .. 1e-5 here), whose
# failure they were seen to catch
MOMENTUM, ENERGY = 1e-8, 1e-7   # relative to max(1, |value|)

# one rigid body, its centre of mass off its origin and its inertia not diagonal: it tumbles
BODY_INERTIA = {'xyz': (0.05, -0.02, 0.03), 'mass': 3.0,
                'I': (0.09, 0.07, 0.05, 0.004, -0.003, 0.006)}   # xx yy zz xy xz yz at the CoM
BODY = """<robot name="body"><link name="box">
  <inertial><origin xyz="{xyz[0]} {xyz[1]} {xyz[2]}"/><mass value="{mass}"/>
    <inertia ixx="{I[0]}" iyy="{I[1]}" izz="{I[2]}" ixy="{I[3]}" ixz="{I[4]}" iyz="{I[5]}"/>
  </inertial></link></robot>""".format(**BODY_INERTIA)


@pytest.fixture(scope='module')
def solo():
    return RobotModel.from_urdf_file(example_urdf('solo_description/robots/solo12.urdf'),
                                     root_joint='floating')


@pytest.fixture(scope='module')
def tiago():
    with warnings.catch_warnings():   # its antennas' inertia, 1e-8 off positive semi-definite
        warnings.simplefilter('ignore', URDFWarning)
        return RobotModel.from_urdf_file(example_urdf('tiago_description/robots/tiago.urdf'),
                                         root_joint='planar')


def random_state(robot: RobotModel, seed: int, speed: float = 1.0) -> tuple:
    """Return a random q (unit quaternions) and qd of ``robot``."""
    rng = np.random.default_rng(seed)
    q = robot.integrate(robot.neutral_configuration(), rng.uniform(-1.0, 1.0, robot.nv))
    return q, rng.uniform(-speed, speed, robot.nv)


def run(sim: Simulator, seconds: float = SECONDS) -> tuple:
    """Step ``sim`` for ``seconds``; return the times and states every CHUNK steps."""
    times, qs, qds = [sim.t], [sim.q.copy()], [sim.qd.copy()]
    for _ in range(int(round(seconds / (CHUNK * sim.dt)))):
        sim.step(CHUNK)
        times.append(sim.t)
        qs.append(sim.q.copy())
        qds.append(sim.qd.copy())
    return np.array(times), np.array(qs), np.array(qds)


def test_the_compiled_integrate_is_the_oracles(solo, tiago):
    """The compiled q (+) v on all three multi-dof joint types, large and small angles."""
    ball = RobotModel.from_urdf_string(BALL)
    for robot in (solo, tiago, ball):
        for seed, scale in ((1, 2.0), (2, 1e-6), (3, 0.0)):
            q, _ = random_state(robot, seed)
            v = np.random.default_rng(seed + 10).normal(size=robot.nv) * scale
            ours = robot.integrate(q, v)
            np.testing.assert_allclose(ours, oracle_integrate(robot._ints, q, v), atol=1e-12)
            batch = robot.integrate(np.array([q, q]), np.array([v, 2 * v]))
            np.testing.assert_array_equal(batch[0], ours)
    q = solo.neutral_configuration()
    q[3:7] = (0.0, 0.0, 0.0, 3.0)   # not a unit quaternion: read as its rotation, out unit
    moved = solo.integrate(q, np.r_[1.0, 0.0, 0.0, 0.0, 0.0, np.pi / 2, np.zeros(12)])
    np.testing.assert_allclose(moved[:7], [2 / np.pi, 2 / np.pi, 0.0, 0.0, 0.0,
                                           np.sqrt(0.5), np.sqrt(0.5)], atol=1e-15)
    q[3:7] = 0.0
    with pytest.raises(ValueError, match='quaternion'):
        solo.integrate(q, np.zeros(solo.nv))


def test_a_step_is_its_definition(solo):
    """Semi-implicit Euler: qd+ = qd + dt FD(q, qd), q+ = q (+) dt qd+ (the model's own calls)."""
    q, qd = random_state(solo, 4)
    effort = np.random.default_rng(5).normal(size=solo.nv)
    sim = Simulator(solo, dt=2e-3, integrator='semi_implicit_euler', q0=q, qd0=qd, **OFF)
    sim.set_effort(effort)
    sim.step()
    velocity = qd + 2e-3 * solo.forward_dynamics(q, qd, effort)
    np.testing.assert_allclose(sim.qd, velocity, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(sim.q, solo.integrate(q, 2e-3 * velocity), rtol=0, atol=1e-14)
    assert sim.q.shape == (19,) and sim.qd.shape == (18,)


def test_solo_in_zero_gravity_keeps_its_momentum_and_energy(solo):
    robot = RobotModel.from_urdf_file(example_urdf('solo_description/robots/solo12.urdf'),
                                      gravity=(0.0, 0.0, 0.0), root_joint='floating')
    q, qd = random_state(robot, 6)
    sim = Simulator(robot, dt=DT, q0=q, qd0=qd, **OFF)
    energy = sim.energy()
    start = robot.centroidal_momentum(q, qd)
    _, qs, qds = run(sim)
    drift = max(np.max(np.abs(robot.centroidal_momentum(a, b) - start)) for a, b in zip(qs, qds))
    assert drift < MOMENTUM * max(1.0, np.max(np.abs(start)))   # [6e-13]
    assert abs(sim.energy() - energy) < ENERGY * max(1.0, abs(energy))   # [5e-14 J]
    np.testing.assert_allclose(np.linalg.norm(qs[:, 3:7], axis=1), 1.0, atol=1e-14)


def test_solo_under_gravity_its_centre_of_mass_on_the_parabola(solo):
    q, qd = random_state(solo, 7)
    sim = Simulator(solo, dt=DT, q0=q, qd0=qd, **OFF)
    energy = sim.energy()
    start = solo.centroidal_momentum(q, qd)
    mass = np.linalg.norm(solo.centroidal_momentum_matrix(q)[:3, 0])   # A_G's base column: m R
    c0, gravity = solo.center_of_mass(q), np.array([0.0, 0.0, -9.81])
    times, qs, qds = run(sim)
    centres = np.array([solo.center_of_mass(a) for a in qs])
    parabola = c0 + np.outer(times, start[:3] / mass) + 0.5 * np.outer(times ** 2, gravity)
    # 490 m of fall in 10 s: within 5e-7 m of the parabola [9e-11 m]
    assert np.max(np.abs(centres - parabola)) < 1e-9 * max(1.0, np.max(np.abs(parabola)))
    angular = np.array([solo.centroidal_momentum(a, b)[3:] for a, b in zip(qs, qds)])
    assert np.max(np.abs(angular - start[3:])) < MOMENTUM * max(1.0, np.max(np.abs(start[3:])))
    assert abs(sim.energy() - energy) < ENERGY * max(1.0, abs(energy))   # [2e-10 J of 9 J]


def test_a_ball_joint_pendulum():
    """Energy, and the angular momentum about the vertical through the pivot (world z)."""
    robot = RobotModel.from_urdf_string(BALL)
    q, qd = random_state(robot, 8, speed=2.0)
    sim = Simulator(robot, dt=DT, q0=q, qd0=qd, **OFF)
    energy = sim.energy()
    pivot = np.array([0.0, 0.0, 1.0])

    def vertical_momentum(a, b):
        h = robot.centroidal_momentum(a, b)
        return h[5] + np.cross(robot.center_of_mass(a) - pivot, h[:3])[2]

    start = vertical_momentum(q, qd)
    _, qs, qds = run(sim)
    assert max(abs(vertical_momentum(a, b) - start) for a, b in zip(qs, qds)) < MOMENTUM  # [3e-11]
    assert abs(sim.energy() - energy) < ENERGY * max(1.0, abs(energy))   # [2e-10 J of 21 J]
    assert abs(np.linalg.norm(sim.q[:4]) - 1.0) < 1e-14


def test_tiago_on_its_planar_base(tiago):
    q, qd = random_state(tiago, 9, speed=0.5)
    sim = Simulator(tiago, dt=DT, q0=q, qd0=qd, **OFF)
    energy = sim.energy()

    def conserved(a, b):
        h = tiago.centroidal_momentum(a, b)
        return np.r_[h[:2], h[5] + np.cross(tiago.center_of_mass(a), h[:3])[2]]

    start = conserved(q, qd)
    _, qs, qds = run(sim)
    assert max(np.max(np.abs(conserved(a, b) - start)) for a, b in zip(qs, qds)) \
        < MOMENTUM * max(1.0, np.max(np.abs(start)))   # [2e-11 of 25]
    assert abs(sim.energy() - energy) < ENERGY * max(1.0, abs(energy))   # [1e-11 J of 359 J]
    np.testing.assert_allclose(np.hypot(qs[:, 2], qs[:, 3]), 1.0, atol=1e-14)


def test_a_free_body_against_mujoco():
    mujoco = pytest.importorskip('mujoco')
    robot = RobotModel.from_urdf_string(BODY, root_joint='floating')
    com, inertia = BODY_INERTIA['xyz'], BODY_INERTIA['I']
    model = mujoco.MjModel.from_xml_string(f"""<mujoco><option timestep="{DT}"
      integrator="RK4" gravity="0 0 -9.81"/><worldbody><body name="box"><freejoint/>
      <inertial pos="{com[0]} {com[1]} {com[2]}" mass="{BODY_INERTIA['mass']}"
        fullinertia="{' '.join(str(x) for x in inertia)}"/></body></worldbody></mujoco>""")
    data = mujoco.MjData(model)
    q = robot.integrate(robot.neutral_configuration(), [0.1, -0.2, 0.3, 0.4, -0.5, 0.6])
    qd = np.array([0.3, -0.1, 0.2, 4.0, -2.0, 3.0])   # tumbling: a few turns a second
    data.qpos[:3], data.qpos[3:] = q[:3], np.r_[q[6], q[3:6]]   # MuJoCo: w first
    rotation = robot.link_pose(q, 'box')[:3, :3]
    data.qvel[:3], data.qvel[3:] = rotation @ qd[:3], qd[3:]   # MuJoCo: world linear velocity
    sim = Simulator(robot, dt=DT, q0=q, qd0=qd, **OFF)
    for _ in range(20):   # 1 s; both RK4 at 1 ms: measured within 1.1e-10 of each other
        sim.step(CHUNK)
        for _ in range(CHUNK):
            mujoco.mj_step(model, data)
        ours_quaternion = sim.q[3:7] * np.sign(sim.q[6] * data.qpos[3])
        np.testing.assert_allclose(sim.q[:3], data.qpos[:3], atol=1e-9)
        np.testing.assert_allclose(ours_quaternion, np.r_[data.qpos[4:], data.qpos[3]],
                                   atol=1e-9)
        world = robot.link_pose(sim.q, 'box')[:3, :3] @ sim.qd[:3]
        np.testing.assert_allclose(world, data.qvel[:3], atol=1e-8)
        np.testing.assert_allclose(sim.qd[3:], data.qvel[3:], atol=1e-8)


def test_rollout_of_a_floating_base_is_the_simulators(solo):
    q, qd = random_state(solo, 10)
    effort = np.random.default_rng(11).normal(size=(30, solo.nv))
    # the default options: the model's damping and friction (zero on the base), limit stops
    q_out, qd_out = rollout(solo, np.array([q, q]), qd, effort, dt=DT)
    assert q_out.shape == (2, 31, solo.nq) and qd_out.shape == (2, 31, solo.nv)
    sim = Simulator(solo, dt=DT, q0=q, qd0=qd)
    for k in range(30):
        sim.set_effort(effort[k])
        sim.step()
        np.testing.assert_array_equal(q_out[1, k + 1], sim.q)
        np.testing.assert_array_equal(qd_out[1, k + 1], sim.qd)
    ref = np.tile(q, (30, 1))
    q_out, _ = rollout(solo, q, qd, effort, dt=DT, kp=np.r_[np.zeros(6), np.full(12, 5.0)],
                       q_ref=ref, **OFF)
    assert np.all(np.isfinite(q_out))
    with pytest.raises(ValueError, match='kp: the columns 0..5 of joint'):
        rollout(solo, q, qd, effort, dt=DT, kp=np.ones(solo.nv), q_ref=ref)


def test_bad_floating_states_are_named(solo):
    with pytest.raises(ValueError, match=r'q0: expected 19 finite positions.*nq = 19'):
        Simulator(solo, q0=np.zeros(18))
    sim = Simulator(solo, **OFF)
    np.testing.assert_array_equal(sim.q, solo.neutral_configuration())
    q = solo.neutral_configuration()
    q[3:7] = 0.0
    with pytest.raises(ValueError, match='q: .*quaternion'):
        sim.set_state(q=q)
    q[6] = 2.0
    sim.set_state(q=q)
    assert sim.q[6] == 1.0
    with pytest.raises(ValueError, match="method: 'RK45'.*manifold"):
        simulate(solo, solo.neutral_configuration(), np.zeros(solo.nv), 0.01, method='RK45')
    t, qs, qds = simulate(solo, solo.neutral_configuration(), np.zeros(solo.nv), 0.01, **OFF)
    assert qs.shape == (11, 19) and qds.shape == (11, 18)


def test_the_command_line_simulates_a_floating_base(tmp_path):
    """ros-dynamics simulate --root-joint floating: the CSV's base columns are the core's."""
    from test_cli import assert_ok, run_cli
    path = example_urdf('solo_description/robots/solo12.urdf')
    out = tmp_path / 'solo.csv'
    process = run_cli('simulate', path, '--root-joint', 'floating', '--seconds', '0.05',
                      '--q0', 'FL_KFE=-0.5', '-o', out)
    assert_ok(process)
    assert "base 'root_joint' (floating)" in process.stdout
    header = out.read_text().splitlines()[0].split(',')
    parts = ('x', 'y', 'z', 'qx', 'qy', 'qz', 'qw')
    assert header[1:8] == [f'root_joint.{c}.position' for c in parts]
    assert header[20] == 'root_joint.vx.velocity'
    table = np.loadtxt(out, delimiter=',', skiprows=1)
    robot = RobotModel.from_urdf_file(path, root_joint='floating')
    q0 = robot.neutral_configuration()
    q0[robot.q_slice('FL_KFE')] = -0.5
    core = Simulator(robot, dt=1e-3, q0=q0)
    core.step(50)
    np.testing.assert_allclose(table[-1, 1:20], core.q, atol=1e-9)   # CSV: 10 digits or more
    process = run_cli('simulate', path, '--seconds', '0.01', '--root-joint', 'ball')
    assert process.returncode == 2 and '--root-joint' in process.stderr
