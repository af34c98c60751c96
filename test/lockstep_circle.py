# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
The 2R arm's circle through ROS in lockstep: simulator_node + cartesian_impedance_controller.

The reference is the circle of Ghosal's worked example (centre (1.2, 1.2) m in
the arm's plane, radius 0.2 m, 10 s per revolution), given to the controller
once as a ``target_trajectory`` (sampled every 10 ms), so the command depends
on each joint state alone; the simulator (RK4, 1 ms, as fast as possible)
advances only when the controller and this process have answered. ``run_circle`` returns every
joint state the simulator published and the tool's tracking error; the test
(test_lockstep.py) and the benchmark (benchmarks/bench_lockstep.py) use it.
"""

import time

from builtin_interfaces.msg import Duration
from geometry_msgs.msg import Transform, Twist
import numpy as np
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
from ros_dynamics import RobotModel
from ros_dynamics.control.trajectories import circle
from ros_dynamics.srv import SetJointState
from ros_helpers import NodeProcess, RosClient, unique_namespace, wait_for
from sensor_msgs.msg import JointState
from std_msgs.msg import Float64MultiArray
from std_srvs.srv import SetBool
from trajectory_msgs.msg import MultiDOFJointTrajectory, MultiDOFJointTrajectoryPoint

import os  # noqa: I100 - after the third-party imports: the paths below

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
URDF = os.path.join(ROOT, 'urdf', 'planar_2r.urdf')
CENTER, RADIUS, PERIOD = np.array([1.2, 0.0, 1.2]), 0.2, 10.0


def start_configuration() -> np.ndarray:
    """Inverse kinematics of the circle's first point (elbow angle positive)."""
    x, z = CENTER[0] + RADIUS, CENTER[2]
    elbow = np.arccos((x * x + z * z - 2.0) / 2.0)
    return np.array([np.arctan2(z, x) - np.arctan2(np.sin(elbow), 1.0 + np.cos(elbow)), elbow])


def circle_message(seconds: float, step: float = 0.01) -> MultiDOFJointTrajectory:
    """Return the circle as a MultiDOFJointTrajectory of the tool starting at sim time 0."""
    message = MultiDOFJointTrajectory(joint_names=['tool'])
    for t in np.arange(0.0, seconds + step / 2, step):
        pose, twist, _ = circle(t, CENTER, RADIUS, PERIOD)
        transform = Transform()
        (transform.translation.x, transform.translation.y,
         transform.translation.z) = pose[:3, 3].tolist()
        transform.rotation.w = 1.0
        velocity = Twist()
        velocity.linear.x, velocity.linear.y, velocity.linear.z = twist[:3].tolist()
        message.points.append(MultiDOFJointTrajectoryPoint(
            transforms=[transform], velocities=[velocity],
            time_from_start=Duration(sec=int(t), nanosec=int(round((t - int(t)) * 1e9)))))
    return message


def ask_start(client: RosClient, states: list, commands: list, q0: np.ndarray) -> JointState:
    """
    Set the paused lockstep simulator's start until it was seen here and answered once.

    A lockstep simulator publishes each state once (see simulator_node), so
    the start is set again (a new state) until this process received it and
    the controller answered it exactly once (an answer to an earlier state
    still under way would be taken for the answer to a later one): then both
    were listening, and the first period advances as soon as it is resumed.
    ``states`` and ``commands`` are filled by this process's subscriptions to
    joint_states and the simulator's commands; returns the start state (both
    lists are emptied).
    """
    for attempt in range(10):
        del states[:], commands[:]
        answer = client.call(SetJointState, 'simulator/set_state', SetJointState.Request(
            name=['shoulder', 'elbow'], position=q0.tolist(), velocity=[0.0, 0.0]))
        assert answer.success, answer.message
        deadline = time.monotonic() + 5.0
        while not (states and commands) and time.monotonic() < deadline:
            time.sleep(0.01)
        time.sleep(0.2)
        if len(states) == 1 and len(commands) == 1:
            break
        assert attempt < 9, f'{len(states)} start states, {len(commands)} answers'
    start = states[0]
    del states[:], commands[:]
    return start


def run_circle(seconds: float, timeout: float = 600.0, **simulator) -> dict:
    """
    Track the circle for ``seconds`` of sim time in lockstep; return what was published.

    Returns {'t': (K,), 'q': (K, 2), 'error': (K,) tool position error (m),
    'wall': s, 'output': the simulator's log}; ``simulator`` overrides its
    parameters.
    """
    robot = RobotModel.from_urdf_file(URDF)
    q0 = start_configuration()
    ns = unique_namespace()
    private = {'/clock': f'{ns}/clock', '/diagnostics': f'{ns}/diagnostics'}
    parameters = {'urdf_path': URDF, 'real_time_factor': 0.0, 'lockstep': True,
                  'start_paused': True, 'lockstep_timeout': 30.0, 'lockstep_answers': 2,
                  'initial_positions.shoulder': float(q0[0]),
                  'initial_positions.elbow': float(q0[1])}
    parameters.update(simulator)
    sim = NodeProcess('simulator_node', ns, parameters, remappings=private, name='simulator')
    controller = NodeProcess('cartesian_impedance_controller', ns, {
        'urdf_path': URDF, 'link': 'tool', 'axes': [0, 2], 'null_damping': 0.0,
        'kp': [400.0] * 6, 'kd': [40.0] * 6, 'state_timeout': 30.0},
        remappings={**private, 'commands': f'{ns}/simulator/commands'})
    client = RosClient(ns, threads=1)
    latched = QoSProfile(depth=1, durability=DurabilityPolicy.TRANSIENT_LOCAL,
                         reliability=ReliabilityPolicy.RELIABLE)
    publisher = client.node.create_publisher(MultiDOFJointTrajectory, 'target_trajectory',
                                             latched)
    publisher.publish(circle_message(seconds + 0.5))
    states, commands = [], []
    every = QoSProfile(depth=100000, reliability=ReliabilityPolicy.RELIABLE)
    # this process is the second lockstep participant: its answer (an empty JointState on
    # ~/joint_commands, which changes no effort) lets the simulator go on only once it got the
    # state, so a loaded machine cannot make it miss one (the publisher keeps 10)
    answers = client.node.create_publisher(JointState, 'simulator/joint_commands', every)
    empty = JointState()

    def record(message: JointState) -> None:
        states.append(message)
        answers.publish(empty)
    client.node.create_subscription(JointState, 'joint_states', record, every)
    client.node.create_subscription(Float64MultiArray, 'simulator/commands', commands.append,
                                    every)
    try:
        with controller, sim:
            wait_for(lambda: publisher.get_subscription_count() > 0
                     and answers.get_subscription_count() > 0, 60.0, 'the controller')
            start_state = ask_start(client, states, commands, q0)
            start = time.monotonic()
            answer = client.call(SetBool, 'simulator/pause', SetBool.Request(data=False))
            assert answer.success, answer.message
            wait_for(lambda: states and _time(states[-1]) >= seconds, timeout, 'the sim time')
            wall = time.monotonic() - start
            assert sim.alive() and controller.alive(), sim.output()
            output = sim.output()
    finally:
        client.close()
    # the start state went out (and was answered) before the unpause: the first period
    # advances at once
    states.insert(0, start_state)
    t = np.array([_time(m) for m in states])
    keep = t <= seconds + 1e-9
    q = np.array([m.position for m in states])[keep]
    t = t[keep]
    error = np.array([np.linalg.norm(robot.link_pose(qk, 'tool')[:3, 3]
                                     - circle(tk, CENTER, RADIUS, PERIOD)[0][:3, 3])
                      for tk, qk in zip(t, q)])
    return {'t': t, 'q': q, 'error': error, 'wall': wall, 'output': output}


def _time(message: JointState) -> float:
    return message.header.stamp.sec + message.header.stamp.nanosec * 1e-9
