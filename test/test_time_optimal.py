# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
time_optimal_trajectory (issue 31) against toppra 0.6 + Pinocchio RNEA and closed forms.

- toppra (1000 grid points, interpolation discretization, Pinocchio's RNEA as
  its torque constraint) on random UR5 and Panda paths: our duration <= 1.01x
  its, every limit respected at dense samples taken here (2 kHz and 20 per
  grid interval, not the solver's own samples); toppra's own worst excess is
  printed beside ours (pytest -s).
- Closed forms on one joint: bang-bang under an acceleration limit, cruise
  under a velocity limit, a pendulum under a torque limit, and the same
  pendulum with armature, a payload and viscous + Coulomb friction (the
  bang-bang phase-plane curves integrated by scipy from the pendulum's
  equation tau = (I + I_a) qdd + m g l cos q + f(qd)).
- Infeasible paths refused with the joint, the limit and the position; bad
  arguments named.
"""

import os
import sys

import numpy as np
import pytest
from ros_dynamics import InfeasiblePathError, RobotModel, time_optimal_trajectory
from ros_dynamics.time_optimal import SplinePath
from ros_dynamics.time_optimal.parameterization import MARGIN
from scipy.integrate import solve_ivp

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from robot_data import example_urdf  # noqa: E402, I100
from toppra_reference import toppra_time, worst_ratios  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PANDA = os.path.join(ROOT, 'urdf', 'panda_arm.urdf')

G = 9.81
MASS, COM, INERTIA = 2.0, 0.5, 0.05       # the pendulum: kg, m (joint to centre), kg m^2


def pendulum_urdf(effort: float = 100.0) -> str:
    """One revolute joint about -y, gravity -z: tau = I qdd + m g l cos q (q from horizontal)."""
    return f"""<robot name="pendulum">
  <link name="base"/>
  <link name="arm">
    <inertial><origin xyz="{COM} 0 0"/><mass value="{MASS}"/>
      <inertia ixx="0.001" ixy="0" ixz="0" iyy="{INERTIA}" iyz="0" izz="{INERTIA}"/>
    </inertial>
  </link>
  <joint name="hinge" type="revolute">
    <parent link="base"/><child link="arm"/><axis xyz="0 -1 0"/>
    <limit lower="-3" upper="3" effort="{effort}" velocity="100"/>
  </joint>
</robot>"""


def dense_check(robot, trajectory, velocity, acceleration, effort, friction=False) -> dict:
    """Worst |value| / limit at 2 kHz and 20 samples per grid interval (our own sampling)."""
    count = max(int(np.ceil(trajectory.duration * 2000)), 20 * (trajectory.grid.size - 1))
    t = np.linspace(0.0, trajectory.duration, count + 1)
    sample = trajectory.sample(t)
    tau = robot.inverse_dynamics(sample.positions, sample.velocities, sample.accelerations,
                                 friction=friction)
    assert np.allclose(tau, sample.efforts, rtol=0, atol=1e-9)
    # the motion is the path: positions on the spline at the sampled s
    s, _, _ = trajectory.path_state(t)
    assert np.allclose(trajectory.path.evaluate(s)[0], sample.positions)
    return {'velocity': float(np.max(np.abs(sample.velocities) / velocity)),
            'acceleration': float(np.max(np.abs(sample.accelerations) / acceleration)),
            'effort': float(np.max(np.abs(tau) / effort))}


def random_path(rng, lower, upper, count: int) -> np.ndarray:
    """Return a smooth random joint path: a line plus a few sine modes, inside the limits."""
    start, goal = rng.uniform(lower, upper), rng.uniform(lower, upper)
    s = np.linspace(0.0, 1.0, count)[:, None]
    wiggle = 0.3 * np.sin(2.0 * np.pi * s * rng.uniform(1.0, 3.0, lower.size))
    return np.clip(start + (goal - start) * s + wiggle, lower, upper)


@pytest.mark.parametrize('name, urdf, count, scale', [
    ('ur5', 'ur5', 30, 0.4),
    ('panda', PANDA, 50, 0.75)])
def test_against_toppra(name, urdf, count, scale):
    if urdf == 'ur5':
        urdf = example_urdf('ur_description/urdf/ur5_robot.urdf')
    robot = RobotModel.from_urdf_file(urdf)
    rng = np.random.default_rng(31)
    lower = np.maximum(robot.lower, -2.8)
    upper = np.minimum(robot.upper, 2.8)
    effort = robot.effort_limit * scale
    velocity = robot.velocity_limit
    compared = 0
    for _ in range(6):
        waypoints = random_path(rng, lower, upper, count)
        path = SplinePath(waypoints)
        reference = toppra_time(urdf, waypoints, path.path_parameter, velocity, effort)
        if reference.duration is None:
            continue
        ours = time_optimal_trajectory(robot, waypoints, effort_limit=effort, grid_points=1000)
        ratios = dense_check(robot, ours, velocity, np.full(robot.dof, np.inf), effort)
        theirs = worst_ratios(robot, reference.trajectory, velocity, effort, rate=2000.0,
                              per_interval=20)
        print(f'{name}: duration ours {ours.duration:.5f} s, toppra {reference.duration:.5f} s '
              f'(ratio {ours.duration / reference.duration:.5f}); worst |value|/limit ours '
              f'velocity {ratios["velocity"]:.6f} effort {ratios["effort"]:.6f}, toppra '
              f'velocity {theirs["velocity"]:.6f} effort {theirs["effort"]:.6f}')
        assert ours.duration <= 1.01 * reference.duration
        assert max(ratios.values()) <= 1.0
        assert max(ours.limit_ratios.values()) <= 1.0
        # an effort limit binds somewhere, and the labelled parts tile the path
        assert any(b.limit.startswith('effort') for b in ours.binding)
        assert ours.binding[0].s_start == path.domain[0]
        assert ours.binding[-1].s_end == path.domain[1]
        assert ours.binding[-1].t_end == pytest.approx(ours.duration)
        # the waypoints are passed at the reported times
        sample = ours.sample(ours.waypoint_times)
        assert np.allclose(sample.positions, waypoints, atol=1e-9)
        compared += 1
        if compared == 2:
            break
    assert compared == 2, f'toppra succeeded on {compared} of the random {name} paths'


def line_robot() -> RobotModel:
    """Return the pendulum with gravity off: a single free joint (inertia only)."""
    return RobotModel.from_urdf_string(pendulum_urdf(), gravity=(0.0, 0.0, 0.0))


def test_bang_bang_under_an_acceleration_limit():
    # one joint from 0 to D, |qdd| <= A, no other limit: T = 2 sqrt(D / A)
    distance, limit = 1.7, 3.0
    trajectory = time_optimal_trajectory(
        line_robot(), [[0.0], [distance]], acceleration_limit=limit, velocity_limit=np.inf,
        effort_limit=np.inf, grid_points=401)
    # the solver keeps MARGIN below every limit: exact for the limit it uses
    used = limit * (1.0 - MARGIN)
    assert trajectory.duration == pytest.approx(2.0 * np.sqrt(distance / used), rel=1e-9)
    assert trajectory.duration == pytest.approx(2.0 * np.sqrt(distance / limit), rel=MARGIN)
    t = np.linspace(0.0, trajectory.duration, 1001)
    qdd = trajectory.sample(t).accelerations[:, 0]
    first, second = t < 0.49 * trajectory.duration, t > 0.51 * trajectory.duration
    assert np.allclose(qdd[first], used, rtol=1e-6)
    assert np.allclose(qdd[second], -used, rtol=1e-6)
    assert {b.limit for b in trajectory.binding} == {'acceleration hinge'}


def test_cruise_under_a_velocity_limit():
    # accelerate at A to V, cruise, brake: T = D / V + V / A (D > V^2 / A); the
    # switches at s = 0.5 and 1.5 fall next to grid points (h = 0.005): 1e-7 of T lost
    distance, velocity, acceleration = 2.0, 1.0, 1.0
    trajectory = time_optimal_trajectory(
        line_robot(), [[0.0], [distance]], acceleration_limit=acceleration,
        velocity_limit=velocity, effort_limit=np.inf, grid_points=401)
    velocity_used, acceleration_used = velocity * (1.0 - MARGIN), acceleration * (1.0 - MARGIN)
    assert trajectory.duration == pytest.approx(
        distance / velocity_used + velocity_used / acceleration_used, rel=1e-6)
    labels = [b.limit for b in trajectory.binding]
    assert labels == ['acceleration hinge', 'velocity hinge', 'acceleration hinge']
    assert [b.s_end for b in trajectory.binding[:2]] == pytest.approx([0.5, 1.5], abs=0.0051)
    t = np.linspace(0.0, trajectory.duration, 2001)
    assert np.max(np.abs(trajectory.sample(t).velocities)) <= velocity


def pendulum_time(q0: float, q1: float, effort: float, inertia: float, mgl: float,
                  friction=lambda v: 0.0 * v) -> float:
    """
    Return the minimum time from rest at q0 to rest at q1 > q0 under |tau| <= limit(q).

    tau = inertia qdd + mgl cos q + friction(qd): full effort forward from q0,
    full effort backward into q1 (integrated backward in time from rest at q1),
    switching where the two phase-plane curves qd(q) cross. The limit is the
    one the solver keeps to: effort less MARGIN of what gravity leaves free.
    """
    def limit(q):
        return effort - MARGIN * max(effort - abs(mgl * np.cos(q)), 0.0)

    def accelerate(_, y):
        return [y[1], (limit(y[0]) - mgl * np.cos(y[0]) - friction(y[1])) / inertia]

    def brake_backward(_, y):   # d/d(-t) of the braking motion
        return [-y[1], -(-limit(y[0]) - mgl * np.cos(y[0]) - friction(y[1])) / inertia]

    def reach(q):
        def event(_, y):
            return y[0] - q
        event.terminal = True
        return event

    options = {'rtol': 1e-11, 'atol': 1e-12, 'dense_output': True}
    forward = solve_ivp(accelerate, (0.0, 20.0), [q0, 0.0], events=reach(q1), **options)
    backward = solve_ivp(brake_backward, (0.0, 20.0), [q1, 0.0], events=reach(q0), **options)
    q = np.linspace(q0, q1, 200001)[1:-1]
    t_forward = np.linspace(0.0, forward.t[-1], 400001)
    t_backward = np.linspace(0.0, backward.t[-1], 400001)
    q_f, v_f = forward.sol(t_forward)
    q_b, v_b = backward.sol(t_backward)
    gap = np.interp(q, q_f, v_f) - np.interp(q, q_b[::-1], v_b[::-1])
    k = int(np.flatnonzero(np.diff(np.sign(gap)))[0])
    switch = q[k] - gap[k] * (q[k + 1] - q[k]) / (gap[k + 1] - gap[k])
    return float(np.interp(switch, q_f, t_forward) + np.interp(switch, q_b[::-1],
                                                               t_backward[::-1]))


def test_pendulum_under_a_torque_limit_armature_payload_friction():
    q0, q1, effort = -1.2, 1.4, 25.0
    robot = RobotModel.from_urdf_string(pendulum_urdf(effort))
    inertia, mgl = INERTIA + MASS * COM ** 2, MASS * G * COM
    # the closed form's terms are the model's
    for q in (-1.0, 0.3):
        assert robot.mass_matrix([q])[0, 0] == pytest.approx(inertia, rel=1e-12)
        assert robot.gravity_torques([q])[0] == pytest.approx(mgl * np.cos(q), rel=1e-12)
    waypoints = np.linspace(q0, q1, 5)[:, None]
    # the discretization (u constant per interval, limits at 3 points) is first order in
    # the grid step h: the error halves from 1001 to 2001 points, so 2 T(h/2) - T(h)
    # (Richardson) must meet the closed form far closer than either
    waypoints = np.linspace(q0, q1, 5)[:, None]
    durations = {}

    def check(label, expected, **extra):
        timed = []
        for grid_points in (1001, 2001):
            trajectory = time_optimal_trajectory(robot, waypoints, velocity_limit=np.inf,
                                                 grid_points=grid_points, **extra)
            ratios = dense_check(robot, trajectory, np.array([np.inf]), np.array([np.inf]),
                                 np.array([effort]), friction=extra.get('friction', False))
            assert ratios['effort'] <= 1.0
            assert ratios['effort'] > 0.999    # the limit is used
            assert trajectory.duration >= expected     # never faster than the optimum
            timed.append(trajectory.duration)
        extrapolated = 2.0 * timed[1] - timed[0]
        print(f'pendulum {label}: {timed[0]:.6f} s (1001 points), {timed[1]:.6f} s (2001), '
              f'extrapolated {extrapolated:.6f} s, closed form {expected:.6f} s')
        assert timed[1] == pytest.approx(expected, rel=5e-4)
        assert extrapolated == pytest.approx(expected, rel=3e-5)
        durations[label] = timed[1]

    check('plain', pendulum_time(q0, q1, effort, inertia, mgl))
    robot.armature = [0.4]
    check('armature', pendulum_time(q0, q1, effort, inertia + 0.4, mgl))
    robot.armature = [0.0]
    robot.set_payload('arm', 1.5, com=(0.8, 0.0, 0.0))
    check('payload', pendulum_time(q0, q1, effort, inertia + 1.5 * 0.8 ** 2,
                                   mgl + 1.5 * G * 0.8))
    robot.clear_payload()
    viscous, coulomb = 3.0, 1.5
    robot.actuators = robot.actuators.replace(viscous=np.array([viscous]),
                                              coulomb=np.array([coulomb]))
    check('plain, friction off', pendulum_time(q0, q1, effort, inertia, mgl))
    slip = robot.actuators.friction_velocity   # f(qd) = b qd + f_c tanh(qd / v_s)
    qd = np.array([[0.3], [2.0]])
    assert np.allclose(robot.friction_torques(qd)[:, 0],
                       viscous * qd[:, 0] + coulomb * np.tanh(qd[:, 0] / slip))

    def joint_friction(v):
        return robot.friction_torques(np.array([[v]]))[0, 0]

    # with friction: the viscous b sqrt(x) and the Coulomb tanh(qd / v_s) are steep at rest,
    # so the grid error shrinks more slowly (h^0.7 measured: 2.5e-3, 1.5e-3, 9.5e-4 of the
    # duration at 1001, 2001, 4001 points); the answer must converge to the closed form
    expected = pendulum_time(q0, q1, effort, inertia, mgl, joint_friction)
    errors = []
    for grid_points in (1001, 2001, 4001):
        trajectory = time_optimal_trajectory(robot, waypoints, velocity_limit=np.inf,
                                             grid_points=grid_points, friction=True)
        ratios = dense_check(robot, trajectory, np.array([np.inf]), np.array([np.inf]),
                             np.array([effort]), friction=True)
        assert 0.999 < ratios['effort'] <= 1.0
        assert trajectory.duration >= expected
        errors.append(trajectory.duration / expected - 1.0)
    print(f'pendulum friction: closed form {expected:.6f} s, relative excess at 1001, 2001, '
          f'4001 points {errors}')
    assert errors[0] / errors[1] > 1.4 and errors[1] / errors[2] > 1.4
    assert errors[2] < 1.5e-3
    durations['friction'] = trajectory.duration
    # each change moves the answer by far more than the tolerance
    base = durations['plain']
    for label in ('armature', 'payload', 'friction'):
        assert abs(durations[label] / base - 1.0) > 0.01, label


def panda_path() -> np.ndarray:
    """Return a 20-waypoint Panda path inside the joint limits."""
    lower = np.array([-2.0, -1.0, -2.0, -2.8, -2.0, 0.5, -2.0])
    upper = np.array([2.0, 1.0, 2.0, -0.5, 2.0, 3.0, 2.0])
    return random_path(np.random.default_rng(7), lower, upper, 20)


def test_panda_friction_armature_payload_change_the_answer_and_stay_certified():
    robot = RobotModel.from_urdf_file(PANDA)
    waypoints = panda_path()
    effort = robot.effort_limit * 0.8
    velocity = robot.velocity_limit
    no_limit = np.full(robot.dof, np.inf)
    durations = {}

    def timed(label, friction=False):
        trajectory = time_optimal_trajectory(robot, waypoints, effort_limit=effort,
                                             friction=friction)
        ratios = dense_check(robot, trajectory, velocity, no_limit, effort, friction=friction)
        assert max(ratios.values()) <= 1.0, (label, ratios)
        durations[label] = trajectory.duration
        return trajectory

    plain = timed('plain')
    robot.actuators = robot.actuators.replace(viscous=np.full(7, 4.0),
                                              coulomb=np.full(7, 2.0))
    with_friction = timed('friction', friction=True)
    # the efforts it reports are the model's, friction included, and an effort limit binds
    t = np.linspace(0.0, with_friction.duration, 500)
    sample = with_friction.sample(t)
    assert np.allclose(sample.efforts, robot.inverse_dynamics(
        sample.positions, sample.velocities, sample.accelerations) + robot.friction_torques(
        sample.velocities), atol=1e-9)
    assert with_friction.limit_ratios['effort'] > 0.999
    # the friction-free timing run with friction on would exceed the effort limits
    t = np.linspace(0.0, plain.duration, 4000)
    sample = plain.sample(t)
    lossy = sample.efforts + robot.friction_torques(sample.velocities)
    assert np.max(np.abs(lossy) / effort) > 1.01
    robot.actuators = robot.actuators.replace(viscous=np.zeros(7), coulomb=np.zeros(7))
    robot.armature = np.full(7, 0.3)
    timed('armature')
    robot.armature = np.zeros(7)
    robot.set_payload('panda_link7', 2.0, com=(0.0, 0.0, 0.1))
    timed('payload')
    print('panda durations', durations)
    for label in ('friction', 'armature', 'payload'):
        assert durations[label] > 1.005 * durations['plain'], label


def test_infeasible_paths_are_refused_with_joint_limit_and_position():
    robot = RobotModel.from_urdf_file(PANDA)
    waypoints = panda_path()
    gravity = np.abs(robot.gravity_torques(waypoints))
    scale = 0.9 * float(np.max(gravity[:, 1]) / robot.effort_limit[1])
    with pytest.raises(InfeasiblePathError) as caught:
        time_optimal_trajectory(robot, waypoints, effort_scale=scale)
    message = str(caught.value)
    assert 'panda_joint2' in message and 'gravity torque alone' in message
    assert 'effort limit' in message and 's = ' in message and 'of 20)' in message
    assert caught.value.joint == 'panda_joint2' and caught.value.limit == 'effort'
    # the position it names is where the gravity torque exceeds the scaled limit
    q = SplinePath(waypoints).evaluate([caught.value.s])[0]
    assert abs(robot.gravity_torques(q[0])[1]) > scale * robot.effort_limit[1]
    # an end velocity beyond a joint's velocity limit
    with pytest.raises(InfeasiblePathError, match='end_velocity: .*velocity limit'):
        time_optimal_trajectory(robot, waypoints, end_velocity=100.0)
    # an end velocity the effort limits cannot brake from or reach is refused, not slowed
    with pytest.raises(InfeasiblePathError):
        time_optimal_trajectory(robot, waypoints, start_velocity=0.5, effort_scale=0.3)


@pytest.mark.parametrize('keywords, match', [
    ({'velocity_limit': -1.0}, 'velocity_limit'),
    ({'acceleration_limit': [1.0, 2.0]}, 'acceleration_limit'),
    ({'effort_limit': float('nan')}, 'effort_limit'),
    ({'effort_scale': 0.0}, 'effort_scale'),
    ({'start_velocity': -0.1}, 'start_velocity'),
    ({'grid_points': 1}, 'grid_points'),
    ({'friction': 'yes'}, 'friction'),
    ({'path_parameter': [0.0, 1.0]}, 'path_parameter')])
def test_bad_arguments_name_the_keyword(keywords, match):
    robot = RobotModel.from_urdf_file(PANDA)
    with pytest.raises(ValueError, match=match):
        time_optimal_trajectory(robot, panda_path(), **keywords)


def test_bad_waypoints_are_named():
    robot = RobotModel.from_urdf_file(PANDA)
    with pytest.raises(ValueError, match='waypoints'):
        time_optimal_trajectory(robot, np.zeros((5, 6)))
    with pytest.raises(ValueError, match='waypoints: rows 1 and 2 are equal'):
        time_optimal_trajectory(robot, np.repeat(panda_path()[:3], [1, 2, 1], axis=0))
    bad = panda_path()
    bad[3, 2] = np.nan
    with pytest.raises(ValueError, match='waypoints: row 3'):
        time_optimal_trajectory(robot, bad)
    trajectory = time_optimal_trajectory(robot, panda_path())
    with pytest.raises(ValueError, match='t: times must lie in'):
        trajectory.sample([trajectory.duration + 1.0])


def test_moving_ends_and_a_path_object_of_your_own():
    # entering and leaving at the velocity limit: the whole path at that speed, T = D / V
    distance, velocity = 2.0, 1.5
    used = velocity * (1.0 - MARGIN)
    trajectory = time_optimal_trajectory(
        line_robot(), [[0.0], [distance]], velocity_limit=velocity, acceleration_limit=1.0,
        effort_limit=np.inf, start_velocity=used, end_velocity=used, grid_points=101)
    assert trajectory.duration == pytest.approx(distance / used, rel=1e-9)
    with pytest.raises(InfeasiblePathError, match='start_velocity'):
        time_optimal_trajectory(line_robot(), [[0.0], [distance]], velocity_limit=velocity,
                                acceleration_limit=1.0, start_velocity=1.01 * velocity)

    class Circle:
        """A joint-space circle q(s) = centre + r (cos s, sin s) of the 2R arm, s in [0, pi]."""

        domain, dof = (0.0, np.pi), 2
        centre, radius = np.array([-0.6, 1.0]), 0.5

        def evaluate(self, s):
            s = np.asarray(s)[:, None]
            direction = np.hstack((np.cos(s), np.sin(s)))
            turn = np.hstack((-np.sin(s), np.cos(s)))
            return (self.centre + self.radius * direction, self.radius * turn,
                    -self.radius * direction)

    robot = RobotModel.from_urdf_file(os.path.join(ROOT, 'urdf', 'planar_2r.urdf'))
    own = time_optimal_trajectory(robot, Circle(), effort_scale=0.8)
    assert own.waypoint_times is None and max(own.limit_ratios.values()) <= 1.0
    ratios = dense_check(robot, own, robot.velocity_limit, np.full(2, np.inf),
                         0.8 * robot.effort_limit)
    assert max(ratios.values()) <= 1.0
    # the same circle through 200 waypoints at the same path parameter
    s = np.linspace(0.0, np.pi, 200)
    spline = time_optimal_trajectory(robot, Circle().evaluate(s)[0], path_parameter=s,
                                     effort_scale=0.8)
    assert spline.duration == pytest.approx(own.duration, rel=2e-3)


def sample_bounds(values: np.ndarray, starts: np.ndarray, limit: np.ndarray) -> np.ndarray:
    """Per run of samples: (largest |value| + largest second difference / 8) / limit."""
    bounds = []
    for start, stop in zip(starts[:-1], starts[1:]):
        run = values[start:stop]
        curvature = np.abs(run[2:] - 2.0 * run[1:-1] + run[:-2]).max(axis=0)
        bounds.append(np.max((np.abs(run).max(axis=0) + curvature / 8.0) / limit))
    return np.array(bounds)


def test_dense_check_is_the_model_at_every_sample():
    # the compiled dense pass (spline pieces) against the path's own evaluate, and the
    # certificate (grid-point samples from the rows) against RNEA at every sample
    robot = RobotModel.from_urdf_file(PANDA)
    rng = np.random.default_rng(5)
    lower, upper = np.maximum(robot.lower, -2.8), np.minimum(robot.upper, 2.8)
    effort = robot.effort_limit * 0.75
    while True:
        waypoints = random_path(rng, lower, upper, 40)
        if np.all(np.abs(robot.gravity_torques(waypoints)) < 0.9 * effort):
            break
    trajectory = time_optimal_trajectory(robot, waypoints, effort_limit=effort, grid_points=300)
    intervals = np.arange(trajectory.grid.size - 1)
    starts, q, qd, qdd = trajectory.dense_states(intervals)
    spline = trajectory.path

    class Wrapped:
        """The same spline without its pieces: the generic route (path_state + evaluate)."""

        domain, dof, breakpoints = spline.domain, spline.dof, spline.breakpoints
        evaluate = spline.evaluate

    trajectory.path = Wrapped()
    generic = trajectory.dense_states(intervals)
    trajectory.path = spline
    assert np.array_equal(starts, generic[0])
    for ours, theirs in zip((q, qd, qdd), generic[1:]):
        assert np.allclose(ours, theirs, rtol=0.0, atol=1e-9)
    counts = np.diff(starts)
    assert counts.min() >= 10                   # >= 10 samples per interval, both ends
    assert np.all(np.diff(trajectory.grid_times) / (counts - 1) <= 1e-3 * (1 + 1e-12))
    # the certificate's worst ratios: the largest sample + second difference / 8 per
    # interval, here with RNEA at every sample
    tau = robot.inverse_dynamics(q, qd, qdd)
    worst = np.stack([sample_bounds(value, starts, limit) for value, limit in
                      ((qd, robot.velocity_limit), (qdd, np.inf), (tau, effort))], axis=1)
    assert np.allclose(trajectory.interval_ratios, worst, rtol=0.0, atol=1e-9)
    for k, kind in enumerate(('velocity', 'acceleration', 'effort')):
        assert trajectory.limit_ratios[kind] == pytest.approx(worst[:, k].max(), abs=1e-12)
    assert 0.99 < worst[:, 2].max() <= 1.0   # an effort limit binds, none is exceeded


def test_dense_check_with_friction_on_a_path_object_of_your_own():
    # the generic route (the path's evaluate) and the friction branch of the certificate
    robot = RobotModel.from_urdf_file(os.path.join(ROOT, 'urdf', 'planar_2r.urdf'))
    robot.actuators = robot.actuators.replace(viscous=np.array([5.0, 2.0]),
                                              coulomb=np.array([3.0, 1.0]))

    class Circle:
        domain, dof = (0.0, np.pi), 2

        def evaluate(self, s):
            s = np.asarray(s)[:, None]
            direction = np.hstack((np.cos(s), np.sin(s)))
            turn = np.hstack((-np.sin(s), np.cos(s)))
            return np.array([-0.6, 1.0]) + 0.5 * direction, 0.5 * turn, -0.5 * direction

    trajectory = time_optimal_trajectory(robot, Circle(), effort_scale=0.8, friction=True)
    starts, q, qd, qdd = trajectory.dense_states(np.arange(trajectory.grid.size - 1))
    tau = robot.inverse_dynamics(q, qd, qdd, friction=True)
    worst = sample_bounds(tau, starts, 0.8 * robot.effort_limit)
    assert np.allclose(trajectory.interval_ratios[:, 2], worst, rtol=0.0, atol=1e-9)
    assert 0.99 < worst.max() <= 1.0


@pytest.mark.fuzz
def test_fuzz_against_toppra():
    # random paths, effort scales and acceleration limits on UR5 and Panda; budget scaled by
    # ROS_DYNAMICS_FUZZ_SCALE (default 1: 8 paths a robot)
    scale = float(os.environ.get('ROS_DYNAMICS_FUZZ_SCALE', '1'))
    rng = np.random.default_rng()
    solved_with_friction = 0
    for urdf in (example_urdf('ur_description/urdf/ur5_robot.urdf'), PANDA):
        robot = RobotModel.from_urdf_file(urdf)
        lower, upper = np.maximum(robot.lower, -2.8), np.minimum(robot.upper, 2.8)
        for _ in range(max(1, int(8 * scale))):
            waypoints = random_path(rng, lower, upper, int(rng.integers(5, 60)))
            effort = robot.effort_limit * rng.uniform(0.3, 1.0)
            acceleration = rng.uniform(2.0, 20.0, robot.dof) if rng.random() < 0.5 else None
            path = SplinePath(waypoints)
            reference = toppra_time(urdf, waypoints, path.path_parameter, robot.velocity_limit,
                                    effort, acceleration=acceleration)
            try:
                ours = time_optimal_trajectory(robot, waypoints, effort_limit=effort,
                                               acceleration_limit=acceleration,
                                               grid_points=1000)
            except InfeasiblePathError as error:
                # refused: toppra must fail too, or its timing must break a limit
                assert reference.duration is None or max(worst_ratios(
                    robot, reference.trajectory, robot.velocity_limit, effort).values()) > 1.0, \
                    str(error)
                continue
            limits = np.full(robot.dof, np.inf) if acceleration is None else acceleration
            assert max(dense_check(robot, ours, robot.velocity_limit, limits,
                                   effort).values()) <= 1.0
            if reference.duration is not None:
                assert ours.duration <= 1.01 * reference.duration
        # with random viscous and Coulomb friction (no reference: certified, or refused)
        for _ in range(max(1, int(4 * scale))):
            waypoints = random_path(rng, lower, upper, int(rng.integers(5, 60)))
            effort = robot.effort_limit * rng.uniform(0.5, 1.0)
            robot.actuators = robot.actuators.replace(
                viscous=rng.uniform(0.0, 0.1, robot.dof) * effort,
                coulomb=rng.uniform(0.0, 0.1, robot.dof) * effort)
            try:
                ours = time_optimal_trajectory(robot, waypoints, effort_limit=effort,
                                               friction=True)
            except InfeasiblePathError:
                continue
            assert max(dense_check(robot, ours, robot.velocity_limit, np.full(robot.dof, np.inf),
                                   effort, friction=True).values()) <= 1.0
            solved_with_friction += 1
    assert solved_with_friction > 0
