# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
The held Panda pushed: a velocity kick under gravity compensation, through ROS, against physics.

simulator_node (lockstep, one state per 1 ms of sim time, no joint damping or
friction; the test's client answers too, so it records every state) and
inverse_dynamics_node (gravity compensation, ``use_sim_time``)
hold the bringup's pose (config/simulator.yaml) in exact static balance; a
velocity kick through ``~/set_state`` (velocities only) then starts the arm
moving. In lockstep the simulator advances a period only after the
compensator answered its state, so the loop is the sampled-data system

    M(q) qdd + C(q, qd) qd + g(q) = g(q_k) - M(q_k) Kd qd_k   on [t_k, t_k + h),

exactly, whatever the load of the machine. Checked against physics:

* every state is answered by one command equal to the core's for that state;
* the recorded trajectory equals the core ``Simulator`` driven the same way
  (to 1e-9 rad);
* without damping (kd = 0) the arm keeps the kicked momentum: the momentum
  about joint 1's vertical axis, (M qd)_1, is conserved (g_1 = 0 and M does
  not depend on q_1), and the kinetic energy stays within the first-order
  effect of holding g(q_k) over one period (a work of about
  -h/2 qd^T dg/dq qd per unit time); the path is the zero-gravity free motion
  to within that one-period effect;
* with kd = 10 1/s the kinetic energy follows the sampled damping
  (1 - kd h)^(2k), the joints come to rest (speeds below 1e-3 of the kick
  within 1 s) and the arm stops where the push took it, about qd_0 / kd from
  the start: no position feedback pulls it back.
"""

import time

import numpy as np
import pytest
from rcl_interfaces.srv import SetParameters
from rclpy.parameter import Parameter
from rclpy.qos import QoSProfile, ReliabilityPolicy
from ros_dynamics import RobotModel
from ros_dynamics.simulation.simulator import Simulator
from ros_dynamics.srv import SetJointState
from ros_helpers import NodeProcess, RosClient, unique_namespace, wait_for
from sensor_msgs.msg import JointState
from std_msgs.msg import Float64MultiArray
from std_srvs.srv import SetBool
from test_gravity_compensation_loop import initial_pose, PANDA

pytestmark = pytest.mark.ros

DT = 1e-3
SECONDS = 1.0
KICK = np.array([0.3, -0.2, 0.3, 0.2, -0.3, -0.2, 0.5])   # rad/s, away from the limits
KD = 10.0   # 1/s


def stamp(message: JointState) -> float:
    """Return the message's stamp in s."""
    return message.header.stamp.sec + message.header.stamp.nanosec * 1e-9


def core_command(robot: RobotModel, q: np.ndarray, qd: np.ndarray, kd: float) -> np.ndarray:
    """Return what the compensator sends: g(q) - M(q) kd qd, clamped to the effort limits."""
    tau = robot.gravity_torques(q)
    if kd:
        tau = tau - robot.mass_matrix(q) @ (np.full(robot.dof, kd) * qd)
    return np.clip(tau, -robot.effort_limit, robot.effort_limit)


def core_loop(robot: RobotModel, q: np.ndarray, qd: np.ndarray, kd: float, steps: int,
              gravity: bool = True) -> tuple:
    """
    Run the core Simulator from (q, qd) with the command of each step's start held.

    Returns (q, qd), each (steps + 1, dof). ``gravity`` False: the free motion
    under exact, continuous compensation (the model without gravity, no command).
    """
    if not gravity:
        robot = RobotModel.from_urdf_file(PANDA)
        robot.gravity = [0.0, 0.0, 0.0]
    sim = Simulator(robot, dt=DT, q0=q, qd0=qd, damping=False, friction=False)
    qs, qds = [sim.q.copy()], [sim.qd.copy()]
    for _ in range(steps):
        if gravity:
            sim.set_effort(core_command(robot, sim.q, sim.qd, kd))
        sim.step()
        qs.append(sim.q.copy())
        qds.append(sim.qd.copy())
    return np.array(qs), np.array(qds)


class Loop:
    """The two nodes in lockstep and a client recording every state and command."""

    def __init__(self, client: RosClient, joints: list) -> None:
        """
        Subscribe to the joint states and the commands, and answer every state.

        The client is the simulator's second lockstep participant (its answer,
        an empty JointState on ``~/joint_commands``, changes no effort): the
        simulator advances only after the client got the state, so a loaded
        machine cannot make it miss one (the publishers keep only 10).
        """
        self.client, self.joints = client, joints
        self.states, self.commands = [], []
        every = QoSProfile(depth=100000, reliability=ReliabilityPolicy.RELIABLE)
        answers = client.node.create_publisher(JointState, 'simulator/joint_commands', every)
        empty = JointState()

        def record(message: JointState) -> None:
            self.states.append(message)
            answers.publish(empty)
        client.node.create_subscription(JointState, 'joint_states', record, every)
        client.node.create_subscription(Float64MultiArray, 'simulator/commands',
                                        lambda m: self.commands.append(np.array(m.data)), every)

    def set_kd(self, kd: float) -> None:
        """Set the compensator's damping gain (1/s) at run time."""
        request = SetParameters.Request(parameters=[
            Parameter('kd', value=[kd]).to_parameter_msg()])
        results = self.client.call(SetParameters, 'inverse_dynamics/set_parameters',
                                   request).results
        assert results[0].successful, results[0].reason

    def kick(self, velocity: np.ndarray, position=None) -> JointState:
        """
        Set the velocities (and positions) while paused; return the state the loop starts from.

        In lockstep each state goes out once: set it again until this client saw
        it and the compensator answered it exactly once (both were listening).
        """
        for attempt in range(10):
            del self.states[:], self.commands[:]
            request = SetJointState.Request(name=self.joints, velocity=velocity.tolist())
            if position is not None:
                request.position = position.tolist()
            answer = self.client.call(SetJointState, 'simulator/set_state', request)
            assert answer.success, answer.message
            deadline = time.monotonic() + 5.0
            while not (self.states and self.commands) and time.monotonic() < deadline:
                time.sleep(0.01)
            time.sleep(0.2)
            if len(self.states) == 1 and len(self.commands) == 1:
                return self.states[0]
        raise AssertionError(f'{len(self.states)} start states, {len(self.commands)} answers')

    def run(self, seconds: float) -> tuple:
        """Unpause until ``seconds`` of sim time went by; return (t, q, qd, commands, wall)."""
        start, begin = stamp(self.states[0]), time.monotonic()
        answer = self.client.call(SetBool, 'simulator/pause', SetBool.Request(data=False))
        assert answer.success, answer.message
        wait_for(lambda: stamp(self.states[-1]) >= start + seconds - 1e-9, 120.0,
                 f'{seconds} s of sim time')
        wall = time.monotonic() - begin
        answer = self.client.call(SetBool, 'simulator/pause', SetBool.Request(data=True))
        assert answer.success, answer.message
        wait_for(lambda: len(self.commands) >= len(self.states), 10.0, 'the last answer')
        states = list(self.states)
        t = np.array([stamp(m) for m in states]) - start
        keep = t <= seconds + 1e-9
        q = np.array([m.position for m in states])[keep]
        qd = np.array([m.velocity for m in states])[keep]
        return t[keep], q, qd, np.array(self.commands[:int(keep.sum())]), wall


def kinetic_energy(robot: RobotModel, q: np.ndarray, qd: np.ndarray) -> np.ndarray:
    """Return qd^T M(q) qd / 2 per row (J)."""
    return np.array([0.5 * v @ robot.mass_matrix(p) @ v for p, v in zip(q, qd)])


def test_kicked_arm_keeps_its_momentum_and_damping_stops_it():
    robot = RobotModel.from_urdf_file(PANDA)
    joints = list(robot.joint_names)
    q0 = initial_pose(robot)
    steps = int(round(SECONDS / DT))
    ns = unique_namespace()
    private = {'/clock': f'{ns}/clock', '/diagnostics': f'{ns}/diagnostics'}
    sim = NodeProcess('simulator_node', ns, {
        'urdf_path': PANDA, 'lockstep': True, 'start_paused': True, 'real_time_factor': 0.0,
        'lockstep_timeout': 30.0, 'lockstep_answers': 2, 'damping': False, 'friction': False,
        'dt': DT,
        **{f'initial_positions.{j}': float(v) for j, v in zip(joints, q0)}},
        remappings=private, name='simulator')
    compensator = NodeProcess('inverse_dynamics_node', ns, {
        'urdf_path': PANDA, 'use_sim_time': True, 'mode': 'gravity_compensation',
        'state_timeout': 30.0, 'kd': [0.0]},
        remappings={**private, 'commands': f'{ns}/simulator/commands'},
        name='inverse_dynamics')
    client = RosClient(ns, threads=1)
    try:
        with compensator, sim:
            loop = Loop(client, joints)
            wait_for(lambda: client.node.count_publishers('simulator/commands') > 0
                     and client.node.count_subscribers('simulator/joint_commands') > 0, 60.0,
                     'the compensator and the simulator')
            runs = {}
            for kd in (0.0, KD):
                loop.set_kd(kd)
                # kd 0: the kick alone (velocities only) from the balanced pose;
                # kd 10: the same pose and kick again
                start = loop.kick(KICK, None if kd == 0.0 else q0)
                runs[kd] = (start,) + loop.run(SECONDS)
            assert sim.alive() and compensator.alive(), sim.output() + compensator.output()
    finally:
        client.close()

    for kd, (start, t, q, qd, commands, wall) in runs.items():
        np.testing.assert_array_equal(np.array(start.position), q0)
        np.testing.assert_array_equal(np.array(start.velocity), KICK)
        # every period of sim time published once, in order, and answered by one command
        assert np.array_equal(np.round(t / DT), np.arange(steps + 1)), t[:5]
        assert len(commands) == len(t)
        expected = np.array([core_command(robot, a, b, kd) for a, b in zip(q, qd)])
        assert np.abs(commands - expected).max() < 1e-9
        # the sampled-data loop of the core, from the same state: the same trajectory
        core_q, core_qd = core_loop(robot, q0, KICK, kd, steps)
        match = max(np.abs(q - core_q).max(), np.abs(qd - core_qd).max())
        assert match < 1e-9
        energy = kinetic_energy(robot, q, qd)
        speed = np.abs(qd).max(axis=1)
        print(f'kd {kd:g} 1/s: {SECONDS} s of sim time in {wall:.1f} s wall; kinetic energy '
              f'{energy[0]:.5f} -> {energy[-1]:.6g} J, max joint speed {speed[0]:.3f} -> '
              f'{speed[-1]:.3g} rad/s, displacement {np.round(q[-1] - q0, 4)} rad; '
              f'the core loop agrees to {match:.1e}, the commands to '
              f'{np.abs(commands - expected).max():.1e}')
        runs[kd] = (q, qd, energy, speed)

    # kd = 0: the kicked momentum is kept
    q, qd, energy, speed = runs[0.0]
    momentum = np.array([(robot.mass_matrix(a) @ b)[0] for a, b in zip(q, qd)])
    assert abs(momentum[0]) > 0.1 and np.abs(momentum - momentum[0]).max() < 1e-9
    # the held g(q_k) does work -h/2 qd^T (dg/dq) qd per unit time to first order
    stiffness = [np.array([(robot.gravity_torques(a + e) - robot.gravity_torques(a - e)) / 2e-6
                           for e in np.eye(robot.dof) * 1e-6]).T for a in q]
    rate = np.array([-0.5 * DT * b @ k @ b for b, k in zip(qd, stiffness)])
    predicted = energy[0] + np.concatenate([[0.0], np.cumsum((rate[1:] + rate[:-1]) / 2) * DT])
    drift = energy - energy[0]
    assert np.abs(drift).max() < 0.05 * energy[0]         # the speed is kept, to a few %
    assert np.abs(energy - predicted).max() < 0.01 * np.abs(drift).max()
    # the path: the zero-gravity free motion, up to the same one-period effect
    free_q, _ = core_loop(robot, q0, KICK, 0.0, steps, gravity=False)
    moved = np.abs(q[-1] - q0)
    assert moved.min() > 0.1                               # every joint went on moving
    assert np.abs(q - free_q).max() < 0.05 * moved.max()
    print(f'kd 0: momentum about the vertical axis {momentum[0]:.6f} N m s, kept to '
          f'{np.abs(momentum - momentum[0]).max():.1e}; kinetic energy '
          f'{100 * drift[-1] / energy[0]:+.2f} % in {SECONDS} s (one-period hold predicts '
          f'{100 * (predicted[-1] - energy[0]) / energy[0]:+.2f} %); path within '
          f'{np.abs(q - free_q).max() * 1e3:.2f} mrad of the free motion')

    # kd = 10 1/s: the arm comes to rest where the push took it
    q, qd, energy, speed = runs[KD]
    k = np.arange(len(energy))
    sampled = energy[0] * (1.0 - KD * DT) ** (2 * k)
    assert np.abs(energy / sampled - 1.0).max() < 0.05
    assert speed[-1] < 1e-3 * speed[0]
    rest = np.argmax(speed < 0.01 * speed[0]) * DT
    assert abs(rest - np.log(100.0) / KD) < 0.1
    np.testing.assert_allclose(q[-1] - q0, KICK / KD, atol=0.1 * np.abs(KICK).max() / KD)
    print(f'kd {KD:g}: speeds below 1 % of the kick after {rest:.3f} s (ln(100) / kd = '
          f'{np.log(100.0) / KD:.3f} s); stopped {np.round(q[-1] - q0, 4)} rad from the start '
          f'(kick / kd = {KICK / KD})')
