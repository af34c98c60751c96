# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
Ground contact in the Simulator and rollout against closed forms, identities and MuJoCo.

A 2 kg box (0.2 x 0.1 x 0.05 m, its eight corners as contact points) on a plane:
sliding decelerates at mu g with every corner's force on the rim of its cone;
on an incline (a tilted normal) it sticks when tan(angle) < mu and slides
with g (sin - mu cos) when larger; dropped with a random spin it comes to rest
on the plane without going through it, and its energy never rises above the
start's. A solid sphere (one contact point with a radius) thrown sliding
without spin rolls off at 5/7 of its speed (Routh). solo12 (example-robot-data,
feet as 1 cm spheres) stands 10 s under joint PD and is dropped against MuJoCo.
"""

import math
import os
import sys

import numpy as np
import pytest

from ros_dynamics import RobotModel
from ros_dynamics.contacts.ground import ContactPoint, Ground
from ros_dynamics.rollouts import rollout
from ros_dynamics.simulation.simulator import simulate, SimulationDiverged, Simulator

sys.path.insert(0, os.path.dirname(__file__))
from robot_data import example_urdf  # noqa: E402, I100

G = 9.81
MASS, SIDES = 2.0, (0.2, 0.1, 0.05)
BOX = """<robot name="box"><link name="box"><inertial><mass value="{m}"/>
<inertia ixx="{ixx}" iyy="{iyy}" izz="{izz}" ixy="0" ixz="0" iyz="0"/></inertial></link>
</robot>"""
FEET = ('FL_FOOT', 'FR_FOOT', 'HL_FOOT', 'HR_FOOT')
STANDING = {'FL_HAA': 0.1, 'FL_HFE': 0.8, 'FL_KFE': -1.6, 'FR_HAA': -0.1, 'FR_HFE': 0.8,
            'FR_KFE': -1.6, 'HL_HAA': 0.1, 'HL_HFE': -0.8, 'HL_KFE': 1.6, 'HR_HAA': -0.1,
            'HR_HFE': -0.8, 'HR_KFE': 1.6}   # solo.srdf's 'standing'
FOOT_RADIUS = 0.01
KP, KD = 5.0, 0.1   # joint PD (N m/rad, N m s/rad)
ARM = os.path.join(os.path.dirname(__file__), '..', 'urdf', 'planar_2r.urdf')


def box_robot() -> RobotModel:
    """Return the floating box, its inertia that of a uniform cuboid."""
    a, b, c = SIDES
    xml = BOX.format(m=MASS, ixx=MASS * (b * b + c * c) / 12, iyy=MASS * (a * a + c * c) / 12,
                     izz=MASS * (a * a + b * b) / 12)
    return RobotModel.from_urdf_string(xml, root_joint='floating')


def corners(bottom_only: bool = False) -> list:
    """Return the box's corners as contact points (the four bottom ones if ``bottom_only``)."""
    a, b, c = (s / 2 for s in SIDES)
    signs = (-1.0,) if bottom_only else (-1.0, 1.0)
    return [ContactPoint('box', (x * a, y * b, z * c)) for x in (-1, 1) for y in (-1, 1)
            for z in signs]


def quaternion_y(angle: float) -> np.ndarray:
    """Return (qx, qy, qz, qw) of a rotation by ``angle`` about y."""
    return np.array([0.0, math.sin(angle / 2), 0.0, math.cos(angle / 2)])


def run(simulator: Simulator, steps: int, record=None) -> list:
    """Step ``simulator`` one step at a time; return record(simulator) after each step."""
    out = []
    for _ in range(steps):
        simulator.step()
        if record is not None:
            out.append(record(simulator))
    return out


@pytest.mark.parametrize('direction', [(1.0, 0.0), (0.6, 0.8)])
def test_sliding_box_decelerates_at_mu_g(direction):
    mu, speed, dt = 0.5, 2.0, 1e-3
    robot = box_robot()
    q0 = np.array([0, 0, SIDES[2] / 2, 0, 0, 0, 1.0])
    v0 = np.zeros(6)
    v0[:2] = speed * np.array(direction)
    sim = Simulator(robot, dt=dt, q0=q0, qd0=v0, ground=Ground(corners(), friction=mu))
    assert sim.integrator == 'semi_implicit_euler'
    records = run(sim, 300, lambda s: (s.t, s.qd.copy(), s.contact_forces, s.q.copy()))
    for t, v, forces, q in records:
        # a sliding box: v = v0 - mu g t along its direction, no sideways or vertical motion
        assert np.allclose(v[:2], (speed - mu * G * t) * np.array(direction), atol=1e-9)
        assert np.allclose(v[2:], 0.0, atol=1e-9)
        bottom = forces[:, 2] > 0.0
        assert bottom.sum() == 4 and np.isclose(forces[:, 2].sum(), MASS * G, rtol=1e-9)
        tangential = np.linalg.norm(forces[:, :2], axis=1)
        # on the rim of each cone, against the motion
        assert np.allclose(tangential, mu * forces[:, 2], rtol=1e-9, atol=1e-9)
        assert np.allclose(forces[bottom, :2] / tangential[bottom, None], -np.array(direction))
        assert abs(q[2] - SIDES[2] / 2) < 1e-9
    # it stops at v0 / (mu g) after v0^2 / (2 mu g) (to a step) and sticks there
    stop = speed / (mu * G)
    run(sim, int(stop / dt) + 200)
    assert np.allclose(sim.qd, 0.0, atol=1e-9)
    distance = speed ** 2 / (2 * mu * G)
    assert abs(np.linalg.norm(sim.q[:2]) - distance) < speed * dt


@pytest.mark.parametrize('push', [5.0, 15.0])
def test_a_pushed_box_sticks_or_slides(push):
    # a horizontal force at the centre (set_wrenches, world axes): the box stays while it is
    # below mu m g (9.81 N at mu 0.5), else accelerates at (F - mu m g) / m
    mu = 0.5
    robot = box_robot()
    sim = Simulator(robot, q0=[0, 0, SIDES[2] / 2, 0, 0, 0, 1],
                    ground=Ground(corners(bottom_only=True), friction=mu))
    sim.set_wrenches({'box': [push, 0, 0, 0, 0, 0]})
    run(sim, 200)
    acceleration = max(0.0, (push - mu * MASS * G) / MASS)
    assert np.isclose(sim.qd[0], acceleration * 0.2, rtol=1e-9, atol=1e-12)
    friction = sim.contact_forces.sum(axis=0)[0]
    assert np.isclose(friction, -min(push, mu * MASS * G), rtol=1e-9)


@pytest.mark.parametrize('angle, mu', [(0.3, 0.5), (0.45, 0.5), (0.3, 0.25)])
def test_box_on_an_incline_sticks_or_slides(angle, mu):
    # the plane's normal tilted by ``angle`` about y, the box lying on it; downhill is +x'
    normal = (math.sin(angle), 0.0, math.cos(angle))
    downhill = np.array([math.cos(angle), 0.0, -math.sin(angle)])
    robot = box_robot()
    q0 = np.concatenate([np.array(normal) * SIDES[2] / 2, quaternion_y(angle)])
    ground = Ground(corners(bottom_only=True), normal=normal, friction=mu)
    sim = Simulator(robot, dt=1e-3, q0=q0, ground=ground)
    steps = 500
    records = run(sim, steps, lambda s: (s.q.copy(), s.contact_forces.sum(axis=0)))
    rotation = robot.link_pose(sim.q, 'box')[:3, :3]
    velocity = rotation @ sim.qd[:3]   # the base's linear velocity in world axes
    t = steps * 1e-3
    if math.tan(angle) < mu:   # sticks: at rest, friction holds m g sin(angle)
        assert np.linalg.norm(velocity) < 1e-9
        assert np.linalg.norm(sim.q[:3] - q0[:3]) < 1e-9
        force = records[-1][1]
        assert np.isclose(force @ np.array(normal), MASS * G * math.cos(angle), rtol=1e-9)
        assert np.isclose(-force @ downhill, MASS * G * math.sin(angle), rtol=1e-9)
    else:   # slides down at g (sin - mu cos)
        acceleration = G * (math.sin(angle) - mu * math.cos(angle))
        assert np.allclose(velocity, acceleration * t * downhill, rtol=1e-9, atol=1e-9)
        travelled = (sim.q[:3] - q0[:3]) @ downhill
        # semi-implicit Euler: x_k = a dt^2 k (k + 1) / 2
        assert np.isclose(travelled, acceleration * 1e-6 * steps * (steps + 1) / 2, rtol=1e-9)


def test_sphere_rolls_off_at_five_sevenths():
    # a uniform solid sphere (I = 2/5 m r^2) thrown sliding without spin: friction mu m g
    # slows it and spins it up until v = omega r, at t = 2 v0 / (7 mu g), then v = 5/7 v0
    m, r, mu, v0 = 1.0, 0.1, 0.3, 2.0
    inertia = 0.4 * m * r * r
    xml = (f'<robot name="ball"><link name="ball"><inertial><mass value="{m}"/><inertia '
           f'ixx="{inertia}" iyy="{inertia}" izz="{inertia}" ixy="0" ixz="0" iyz="0"/>'
           '</inertial></link></robot>')
    robot = RobotModel.from_urdf_string(xml, root_joint='floating')
    sim = Simulator(robot, q0=[0, 0, r, 0, 0, 0, 1], qd0=[v0, 0, 0, 0, 0, 0],
                    ground=Ground([ContactPoint('ball', radius=r)], friction=mu))
    rolling = 2 * v0 / (7 * mu * G)
    run(sim, int(rolling / sim.dt) + 100)
    rotation = robot.link_pose(sim.q, 'ball')[:3, :3]
    linear, angular = rotation @ sim.qd[:3], rotation @ sim.qd[3:]
    assert np.isclose(linear[0], 5 / 7 * v0, rtol=1e-9)
    assert np.isclose(angular[1] * r, linear[0], rtol=1e-9)   # rolling: the contact at rest
    assert abs(sim.q[2] - r) < 1e-9


def check_drop(seed: int, friction: float, steps: int = 2000) -> None:
    """Drop the box with a random pose and spin from 0.3 m: the checks of the drop tests."""
    rng = np.random.default_rng(seed)
    robot = box_robot()
    quaternion = rng.normal(size=4)
    q0 = np.concatenate([[0.0, 0.0, 0.3], quaternion / np.linalg.norm(quaternion)])
    v0 = np.concatenate([rng.uniform(-1, 1, 3), rng.uniform(-5, 5, 3)])
    sim = Simulator(robot, q0=q0, qd0=v0, ground=Ground(corners(), friction=friction))
    start = sim.energy()
    points = np.array([point.position for point in corners()])

    def record(s):   # the energy and the lowest corner's height, from the kinematics
        pose = robot.link_pose(s.q, 'box')
        return s.energy(), (pose[:3, :3] @ points.T)[2].min() + pose[2, 3]

    records = np.array(run(sim, steps, record))
    energy, lowest = records[:, 0], records[:, 1]
    # never through the plane beyond the documented bound (docs/contacts.md): 10 um (measured
    # at most 0.9 um in 8 such drops)
    assert lowest.min() > -1e-5, f'seed {seed}'
    # energy never above the start's, no step adds more than 1 uJ (the push-out of a
    # penetration: measured at most 0.04 uJ), and it falls to rest on a face
    assert energy.max() <= start, f'seed {seed}'
    assert np.diff(np.r_[start, energy]).max() < 1e-6, f'seed {seed}'
    assert np.linalg.norm(sim.qd) < 1e-6, f'seed {seed}'
    assert min(abs(sim.q[2] - s / 2) for s in SIDES) < 1e-6, f'seed {seed}'


@pytest.mark.parametrize('seed', range(4))
def test_dropped_box_comes_to_rest_without_creating_energy(seed):
    check_drop(seed, 0.6)


@pytest.mark.fuzz
def test_dropped_box_fuzz():
    """check_drop at 20 x ROS_DYNAMICS_FUZZ_SCALE seeds, friction from 0.1 to 1.5, 3 s each."""
    scale = float(os.environ.get('ROS_DYNAMICS_FUZZ_SCALE', '1'))
    rng = np.random.default_rng(11)
    for seed in range(100, 100 + max(1, int(20 * scale))):
        check_drop(seed, float(rng.uniform(0.1, 1.5)), steps=3000)


def test_rollout_is_the_simulator_stepped_by_hand():
    robot = box_robot()
    rng = np.random.default_rng(7)
    quaternions = rng.normal(size=(3, 4))
    q0 = np.hstack([np.tile([0.0, 0.0, 0.2], (3, 1)),
                    quaternions / np.linalg.norm(quaternions, axis=1, keepdims=True)])
    v0 = np.hstack([rng.uniform(-1, 1, (3, 3)), rng.uniform(-3, 3, (3, 3))])
    ground = Ground(corners(), friction=0.7)
    steps = 400
    effort = rng.normal(scale=2.0, size=(3, steps, 6))   # a wrench on the base
    q, qd = rollout(robot, q0, v0, effort, ground=ground)
    for b in range(3):
        sim = Simulator(robot, q0=q0[b], qd0=v0[b], ground=ground)
        for k in range(steps):
            sim.set_effort(effort[b, k])
            sim.step()
            assert np.array_equal(sim.q, q[b, k + 1]) and np.array_equal(sim.qd, qd[b, k + 1])


@pytest.mark.parametrize('count', [10, 100])
def test_a_block_of_steps_is_the_same_steps_one_by_one(count):
    # step(count): through the C callback below 64 steps, numba's dispatcher from there
    robot = box_robot()
    ground = Ground(corners(), friction=0.4)
    one, block = (Simulator(robot, q0=[0, 0, 0.1, 0, 0, 0, 1], qd0=[1.0, 0, 0, 1.0, 0, 2.0],
                            ground=ground) for _ in range(2))
    run(one, count)
    block.step(count)
    assert np.array_equal(one.q, block.q) and np.array_equal(one.qd, block.qd)
    assert np.array_equal(one.contact_forces, block.contact_forces) and block.t == one.t


def test_simulate_takes_the_ground():
    robot = box_robot()
    q0, v0 = [0, 0, 0.1, 0, 0, 0, 1], [1.0, 0, 0, 0, 0, 2.0]
    ground = Ground(corners(), friction=0.4)
    t, q, qd = simulate(robot, q0, v0, 0.3, ground=ground)
    sim = Simulator(robot, q0=q0, qd0=v0, ground=ground)
    run(sim, 300)
    assert t.shape == (301,) and np.array_equal(q[-1], sim.q) and np.array_equal(qd[-1], sim.qd)
    arm = RobotModel.from_urdf_file(ARM)
    with pytest.raises(ValueError, match='ground: contact is impulsive'):
        simulate(arm, [0, 0], [0, 0], 0.1, method='RK45',
                 ground=Ground([ContactPoint('tool')], height=-1.5))


def solo12() -> tuple:
    """Return solo12 on a floating base and its 'standing' configuration at height 0.3 m."""
    robot = RobotModel.from_urdf_file(example_urdf('solo_description/robots/solo12.urdf'),
                                      root_joint='floating')
    q0 = robot.neutral_configuration()
    q0[2] = 0.3
    for joint, value in STANDING.items():
        q0[robot.q_slice(joint)] = value
    return robot, q0


def joint_pd(q_ref: np.ndarray, q: np.ndarray, v: np.ndarray) -> np.ndarray:
    """Return the efforts (nv,) of the joint PD (none on the base)."""
    effort = np.zeros(v.shape[0])
    effort[6:] = KP * (q_ref[7:] - q[7:]) - KD * v[6:]
    return effort


def test_solo12_stands_ten_seconds_under_joint_pd():
    robot, q0 = solo12()
    ground = Ground([ContactPoint(f, radius=FOOT_RADIUS) for f in FEET], friction=0.8)
    sim = Simulator(robot, q0=q0, ground=ground, damping=False, friction=False, limits=False)
    weight = -robot.gravity[2] * robot.inertial_parameters()[:, 0].sum()
    heights, totals = [], []
    for _ in range(10000):
        sim.set_effort(joint_pd(q0, sim.q, sim.qd))
        sim.step()
        heights.append(sim.q[2])
        totals.append(sim.contact_forces.sum(axis=0))
    heights, totals = np.array(heights), np.array(totals)
    # dropped from 0.3 m it lands and settles within 2 s; from then on the height drifts less
    # than 0.1 mm and the forces sum to the weight within 1 % at every step
    assert np.ptp(heights[2000:]) < 1e-4
    assert np.all(np.abs(totals[2000:, 2] - weight) < 0.01 * weight)
    assert np.all(np.abs(totals[2000:, :2]) < 0.01 * weight)
    # the same stance through rollout's compiled PD (one-dof joints' position errors)
    kp = np.diag(np.r_[np.zeros(6), np.full(12, KP)])
    kd = np.diag(np.r_[np.zeros(6), np.full(12, KD)])
    q, _ = rollout(robot, q0, np.zeros(18), steps=3000, kp=kp, kd=kd,
                   q_ref=np.tile(q0, (3000, 1)), ground=ground, damping=False, friction=False,
                   limits=False)
    assert np.allclose(q[0, 1:, 2], heights[:3000], rtol=0.0, atol=1e-6)


def mujoco_drop(timeconst: float, noslip: int, seconds: float = 3.0) -> tuple:
    """
    Drop solo12 from 0.3 m under joint PD in both simulators; return their final states.

    Returns (ours: height, normal forces (4,), MuJoCo: height, normal forces (4,),
    mean penetration (m)).
    """
    mujoco = pytest.importorskip('mujoco')
    from mujoco_models import mujoco_ground_model
    robot, q0 = solo12()
    path = example_urdf('solo_description/robots/solo12.urdf')
    model = mujoco_ground_model(path, FEET, FOOT_RADIUS, 0.8, 1e-3, timeconst, noslip)
    data = mujoco.MjData(model)
    data.qpos[:], data.qvel[:] = robot.to_mujoco(q0, np.zeros(robot.nv))
    ground = Ground([ContactPoint(f, radius=FOOT_RADIUS) for f in FEET], friction=0.8)
    sim = Simulator(robot, q0=q0, ground=ground, damping=False, friction=False, limits=False)
    for _ in range(int(seconds / 1e-3)):
        q, v = robot.from_mujoco(data.qpos, data.qvel)
        data.qfrc_applied[6:] = joint_pd(q0, q, v)[6:]   # the joints' order is ours
        mujoco.mj_step(model, data)
        sim.set_effort(joint_pd(q0, sim.q, sim.qd))
        sim.step()
    force = np.zeros(6)
    normals, depth = np.zeros(4), []
    feet = [mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_GEOM, f) for f in FEET]
    for i in range(data.ncon):
        contact = data.contact[i]
        mujoco.mj_contactForce(model, data, i, force)
        foot = contact.geom[0] if contact.geom[0] in feet else contact.geom[1]
        normals[feet.index(foot)] = force[0]
        depth.append(-contact.dist)
    return sim.q[2], sim.contact_forces[:, 2], data.qpos[2], normals, float(np.mean(depth))


@pytest.mark.parametrize('timeconst', [0.02, 0.002])
def test_solo12_dropped_against_mujoco(timeconst):
    # MuJoCo's contacts are soft by design: at rest a foot sinks by the depth at which the
    # constraint's spring-damper (solref timeconst, the MuJoCo default 0.02 s and the stiffest
    # it advises, 2 dt) balances the load, and without its no-slip solver friction creeps, the
    # feet splaying under the stance's sideways forces (measured: the base 14 mm lower after
    # 3 s). With no-slip on, the base rests lower than ours by MuJoCo's penetration, to 0.1 mm
    # (measured: 1.86 mm deep, 1.93 mm lower; 0.041 mm deep, 0.046 mm lower), and each foot
    # carries the same load to 0.1 % of the weight (measured 2e-5)
    ours, forces, theirs, normals, depth = mujoco_drop(timeconst, noslip=20)
    assert depth > 0.0
    assert abs((ours - theirs) - depth) < 1e-4
    weight = forces.sum()
    assert np.allclose(normals, forces, rtol=0.0, atol=1e-3 * weight)
    assert np.isclose(normals.sum(), weight, rtol=1e-3)


def test_a_fixed_base_arm_comes_to_rest_on_the_ground():
    # urdf/planar_2r.urdf released level above a plane 1.5 m below its shoulder: its tool
    # lands, slides and comes to rest on the plane, its force inside the friction cone
    robot = RobotModel.from_urdf_file(ARM)
    ground = Ground([ContactPoint('tool')], height=-1.5, friction=0.8)
    sim = Simulator(robot, q0=[0.0, 0.0], ground=ground, damping=False, friction=False)
    heights = run(sim, 3000, lambda s: robot.link_pose(s.q, 'tool')[2, 3])
    assert min(heights) > -1.5 - 1e-9
    assert np.abs(sim.qd).max() < 1e-9 and abs(heights[-1] + 1.5) < 1e-9
    force = sim.contact_forces[0]
    assert force[2] > 0.0 and np.hypot(force[0], force[1]) < 0.8 * force[2]


@pytest.mark.parametrize('change, message', [
    ({'friction': 0.0}, 'ground: friction'),
    ({'friction': float('nan')}, 'ground: friction'),
    ({'normal': (0.0, 0.0, 2.0)}, 'normal must be a unit vector'),
    ({'points': []}, 'ground: points'),
    ({'points': ['FL_FOOT']}, r'ground: points\[0\]'),
    ({'erp': 1.5}, 'ground: erp'),
    ({'iterations': 0}, 'ground: iterations'),
    ({'height': float('inf')}, 'ground: height'),
])
def test_a_bad_ground_is_refused_naming_the_keyword(change, message):
    fields = {'points': [ContactPoint('box')]}
    fields.update(change)
    with pytest.raises(ValueError, match=message):
        Ground(**fields)


def test_the_simulator_refuses_what_the_ground_cannot_do():
    robot = box_robot()
    ground = Ground([ContactPoint('box')])
    with pytest.raises(ValueError, match='contact point on .box.: radius'):
        ContactPoint('box', radius=-0.1)
    with pytest.raises(ValueError, match=r"ground: points\[0\]: frame 'bx' is not a link"):
        Simulator(robot, ground=Ground([ContactPoint('bx')]))
    with pytest.raises(ValueError, match='integrator: ground contact steps are semi-implicit'):
        Simulator(robot, integrator='rk4', ground=ground)
    with pytest.raises(ValueError, match='ground: expected a Ground'):
        Simulator(robot, ground={'height': 0.0})
    sim = Simulator(robot, ground=ground)
    with pytest.raises(ValueError, match='integrator: ground contact'):
        sim.integrator = 'rk4'
    with pytest.raises(ValueError, match='ground: contact is impulsive'):
        sim.acceleration(sim.q, sim.qd)
    assert Simulator(robot).integrator == 'rk4' and Simulator(robot).contact_forces.shape == (0, 3)


def test_a_nan_effort_pauses_the_simulation_and_a_finite_one_resumes_it():
    robot = box_robot()
    sim = Simulator(robot, q0=[0, 0, SIDES[2] / 2, 0, 0, 0, 1], ground=Ground(corners()))
    sim.step(5)
    q = sim.q.copy()
    sim.set_effort([np.nan, 0, 0, 0, 0, 0])
    with pytest.raises(SimulationDiverged, match='non-finite; kept the last good state'):
        sim.step()
    assert np.array_equal(sim.q, q)
    sim.set_effort(np.zeros(6))
    sim.step(10)
    assert np.isclose(sim.contact_forces[:, 2].sum(), MASS * G, rtol=1e-9)


def test_solo12_trots_in_place_at_one_millisecond():
    # diagonal pairs of feet lifted in turn at 2 Hz by the joint PD's references: feet leave
    # and strike the ground every step cycle; the step stays stable, the forces in their
    # cones, the feet out of the plane
    robot, q0 = solo12()
    ground = Ground([ContactPoint(f, radius=FOOT_RADIUS) for f in FEET], friction=0.8)
    sim = Simulator(robot, q0=q0, ground=ground, damping=False, friction=False, limits=False)
    phase = {'FL': 0.0, 'HR': 0.0, 'FR': math.pi, 'HL': math.pi}
    touching, lowest = [], []
    for k in range(4000):
        t = k * 1e-3
        q_ref = q0.copy()
        if t > 1.0:   # stand first
            for leg, offset in phase.items():
                lift = 0.5 * max(0.0, math.sin(2 * math.pi * 2.0 * t + offset))
                sign = 1.0 if leg[0] == 'F' else -1.0
                q_ref[robot.q_slice(f'{leg}_HFE')] += sign * lift
                q_ref[robot.q_slice(f'{leg}_KFE')] -= sign * 2 * lift
        sim.set_effort(joint_pd(q_ref, sim.q, sim.qd))
        sim.step()
        forces = sim.contact_forces
        assert np.all(forces[:, 2] >= 0.0)
        assert np.all(np.hypot(forces[:, 0], forces[:, 1]) <= 0.8 * forces[:, 2] * (1 + 1e-9))
        touching.append(int(np.count_nonzero(forces[:, 2] > 0.0)))
        lowest.append(min(robot.link_pose(sim.q, f)[2, 3] for f in FEET) - FOOT_RADIUS)
    touching = np.array(touching[1500:])
    assert touching.min() <= 2 and touching.max() == 4   # feet lift off and land
    assert min(lowest) > -1e-5 and sim.q[2] > 0.15
