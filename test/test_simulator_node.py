# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
The simulator node over real ROS: the installed executable in a subprocess.

Each test starts ``simulator_node`` in a namespace of its own (``/clock`` and
``/diagnostics`` remapped into it) and drives it through its topics and
services. Most checks run the simulator paused and advance it with
``~/step``, so they are deterministic and independent of machine speed; the
results are compared with the ROS-free core (``ros_dynamics.simulation.simulator``),
the same physics called directly.
"""

import math
import os
import time

from diagnostic_msgs.msg import DiagnosticArray, DiagnosticStatus
from geometry_msgs.msg import WrenchStamped
import numpy as np
import pytest
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
from ros_dynamics import RobotModel
from ros_dynamics.simulation.closed_chain import ClosedChain
from ros_dynamics.simulation.simulator import Simulator
from ros_dynamics.srv import SetJointState, SimStep
from ros_helpers import NodeProcess, RosClient, START_TIMEOUT, unique_namespace, wait_for
from rosgraph_msgs.msg import Clock
from sensor_msgs.msg import JointState
from std_msgs.msg import Float64MultiArray, String
from std_srvs.srv import SetBool, Trigger
import yaml

pytestmark = pytest.mark.ros

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ARM_2R = os.path.join(ROOT, 'urdf', 'planar_2r.urdf')
PANDA = os.path.join(ROOT, 'urdf', 'panda_arm.urdf')


class Sim:
    """A simulator node process plus a client node in the same namespace."""

    def __init__(self, urdf: str, **parameters) -> None:
        self.ns = unique_namespace()
        parameters = {'urdf_path': urdf, **parameters}
        self.process = NodeProcess('simulator_node', self.ns, parameters,
                                   remappings={'/clock': f'{self.ns}/clock',
                                               '/diagnostics': f'{self.ns}/diagnostics'})
        self.process.start()
        self.client = RosClient(self.ns)
        self.node = self.client.node
        self.states = []
        self.diagnostics = []
        self.node.create_subscription(JointState, 'joint_states', self.states.append, 100)
        self.node.create_subscription(DiagnosticArray, 'diagnostics', self.diagnostics.append,
                                      10)
        self.commands = self.node.create_publisher(Float64MultiArray, 'simulator/commands', 10)
        self.joint_commands = self.node.create_publisher(JointState, 'simulator/joint_commands',
                                                         10)
        self.wrenches = self.node.create_publisher(WrenchStamped, 'simulator/external_wrench',
                                                   10)

    def call(self, kind, service: str, once: bool = False, **fields):
        request = kind.Request(**fields)
        return self.client.call(kind, f'simulator/{service}', request, once=once)

    def step(self, steps: int) -> SimStep.Response:
        return self.call(SimStep, 'step', once=True, steps=steps)

    def wait_subscribed(self, publisher) -> None:
        wait_for(lambda: publisher.get_subscription_count() > 0, what='the simulator subscribed')

    def command(self, values) -> None:
        self.commands.publish(Float64MultiArray(data=[float(v) for v in values]))

    def step_until_effort(self, expected, steps: int = 1) -> SimStep.Response:
        """Step until the command reached the simulator (the applied effort says so)."""
        answers = []

        def arrived():
            answers.append(self.step(steps))
            assert answers[-1].success, answers[-1].message
            return np.allclose(answers[-1].state.effort, expected)
        wait_for(arrived, what=f'applied effort {expected}')
        return answers[-1]

    def close(self) -> None:
        self.client.close()
        code = self.process.stop()
        assert 'Traceback' not in self.process.output(), self.process.output()
        assert code == 0, f'simulator exited with {code}:\n{self.process.output()}'


@pytest.fixture
def sims():
    started = []

    def start(urdf: str, **parameters) -> Sim:
        started.append(Sim(urdf, **parameters))
        return started[-1]
    yield start
    for sim in started:
        sim.close()


def vector(state: JointState, names) -> np.ndarray:
    return np.array([state.position[list(state.name).index(n)] for n in names])


def test_step_matches_the_core_and_services_answer(sims):
    sim = sims(ARM_2R, start_paused=True, publish_clock=False)
    robot = RobotModel.from_urdf_file(ARM_2R)
    core = Simulator(robot, dt=1e-3)
    answer = sim.call(SetJointState, 'set_state', name=['elbow', 'shoulder'],
                      position=[0.7, -0.4], velocity=[])
    assert answer.success, answer.message
    assert list(answer.state.name) == list(robot.joint_names)
    assert np.allclose(vector(answer.state, ['shoulder', 'elbow']), [-0.4, 0.7])
    core.set_state([-0.4, 0.7], [0.0, 0.0])
    answer = sim.step(250)
    assert answer.success, answer.message
    core.step(250)
    assert np.allclose(answer.state.position, core.q, atol=1e-12, rtol=0)
    assert np.allclose(answer.state.velocity, core.qd, atol=1e-12, rtol=0)
    assert np.linalg.norm(core.qd) > 0.1   # it really swung
    assert math.isclose(answer.sim_time, 0.25, abs_tol=1e-9)
    stamp = answer.state.header.stamp
    assert math.isclose(stamp.sec + stamp.nanosec * 1e-9, 0.25, abs_tol=1e-6)

    # errors are answers, and the node keeps serving
    bad = sim.call(SetJointState, 'set_state', name=['wrist'], position=[0.0], velocity=[])
    assert not bad.success and 'wrist' in bad.message
    bad = sim.call(SetJointState, 'set_state', name=['elbow'], position=[0.0, 1.0], velocity=[])
    assert not bad.success and '2 values for 1 names' in bad.message
    bad = sim.call(SetJointState, 'set_state', name=['elbow'], position=[math.nan],
                   velocity=[])
    assert not bad.success and 'finite' in bad.message
    assert not sim.step(0).success

    # velocities alone, positions kept
    answer = sim.call(SetJointState, 'set_state', name=['shoulder'], position=[],
                      velocity=[2.0])
    assert answer.success
    assert np.allclose(answer.state.position, core.q, atol=1e-12)
    assert vector(answer.state, ['shoulder'])[0] == pytest.approx(core.q[0])
    assert answer.state.velocity[0] == 2.0

    # reset: the initial state (zeros), time keeps running forward
    answer = sim.call(Trigger, 'reset')
    assert answer.success, answer.message
    answer = sim.step(1)
    assert answer.sim_time == pytest.approx(0.251)
    zero = Simulator(robot, dt=1e-3)
    zero.step(1)
    assert np.allclose(answer.state.position, zero.q, atol=1e-12)

    # run: joint_states at 500 Hz of sim time, stamped with sim time; step refused while running
    assert sim.call(SetBool, 'pause', data=False).success
    wait_for(lambda: len([s for s in sim.states if stamp_of(s) > 0.3]) > 60,
             what='joint_states while running')
    running = sim.step(1)
    assert not running.success and 'paused' in running.message
    assert sim.call(SetBool, 'pause', data=True).success
    stamps = np.array([stamp_of(s) for s in sim.states if stamp_of(s) > 0.3])
    steps = np.diff(stamps)
    assert np.all(steps >= 0)   # non-decreasing (a paused simulator repeats its stamp)
    # published every 2 ms of sim time (a loaded subscriber may drop some: multiples of it);
    # the last one may be the state published when the pause landed between two publications
    spacing = steps[steps > 0][:-1]
    assert spacing.min() == pytest.approx(0.002, abs=1e-6)
    assert np.allclose(spacing / 0.002, np.round(spacing / 0.002), atol=1e-3)
    # paused: time stands still, the state is still published
    now = sim.step(1).sim_time

    def repeated() -> int:
        return sum(1 for s in list(sim.states) if abs(stamp_of(s) - now) < 1e-6)
    wait_for(lambda: repeated() >= 3, what='joint_states repeated while paused')
    assert max(stamp_of(s) for s in sim.states) == pytest.approx(now, abs=1e-6)


def stamp_of(state: JointState) -> float:
    return state.header.stamp.sec + state.header.stamp.nanosec * 1e-9


def test_clock_is_published_every_step_with_sim_time(sims):
    # held until the first command: time runs, the joints stay, any dt is fine
    sim = sims(ARM_2R, start_paused=True, hold_until_command=True, dt=0.125)
    ticks = []
    sim.node.create_subscription(Clock, 'clock', ticks.append, 100)
    steps = []

    def connected():    # one step at a time until /clock reaches us
        steps.append(sim.step(1))
        assert steps[-1].success, steps[-1].message
        return len(ticks) > 0
    wait_for(connected, what='a clock message')
    ticks.clear()
    first = len(steps) + 1
    answer = sim.step(10)
    assert answer.success, answer.message
    assert answer.sim_time == 0.125 * (first + 9)      # exact: multiples of 1/8
    wait_for(lambda: len(ticks) >= 10, what='10 clock messages')
    assert [(tick.clock.sec, tick.clock.nanosec) for tick in ticks] == [
        (k // 8, k % 8 * 125000000) for k in range(first, first + 10)]
    stamp = answer.state.header.stamp
    assert (stamp.sec, stamp.nanosec) == (ticks[-1].clock.sec, ticks[-1].clock.nanosec)


def test_clock_period_on_the_sim_time_grid(sims):
    # paced (real_time_factor 1): /clock every clock_period of sim time, and the state a
    # ~/step call ends on in any case; dt = 1/8 s keeps the times exact
    sim = sims(ARM_2R, start_paused=True, hold_until_command=True, dt=0.125, clock_period=0.5)
    ticks = []
    sim.node.create_subscription(Clock, 'clock', ticks.append, 100)
    steps = []

    def connected():    # four steps (one clock period) at a time until /clock reaches us
        steps.append(sim.step(4))
        assert steps[-1].success, steps[-1].message
        return len(ticks) > 0
    wait_for(connected, what='a clock message')
    ticks.clear()
    first = 4 * len(steps)
    answer = sim.step(10)
    assert answer.success, answer.message
    assert answer.sim_time == 0.125 * (first + 10)
    wait_for(lambda: len(ticks) >= 3, what='3 clock messages')
    assert [(tick.clock.sec, tick.clock.nanosec) for tick in ticks] == [
        (k // 8, k % 8 * 125000000) for k in (first + 4, first + 8, first + 10)]


def test_full_speed_clock_and_states_per_wall_time(sims):
    # real_time_factor 0: /clock at most once per clock_period and joint_states at most
    # publish_rate per second of wall time, while sim time runs much faster
    sim = sims(ARM_2R, real_time_factor=0.0, clock_period=0.01, publish_rate=50.0,
               command_timeout=0.0)
    ticks = []
    sim.node.create_subscription(Clock, 'clock', ticks.append, 1000)
    wait_for(lambda: len(ticks) > 2 and len(sim.states) > 2, what='/clock and joint_states')
    ticks.clear()
    sim.states.clear()
    start = time.monotonic()
    time.sleep(2.0)
    wall = time.monotonic() - start
    clock = [tick.clock.sec + tick.clock.nanosec * 1e-9 for tick in list(ticks)]
    # what was published before the window but delivered in it counts: a loaded machine
    # delivers in bursts (205 ticks for 2.0 s once, beside a busy loop and a compile), hence
    # 10 % and 5 messages of slack; without the limits there would be thousands
    assert len(clock) <= 1.1 * wall / 0.01 + 5 and len(sim.states) <= 1.1 * wall * 50.0 + 5
    assert np.all(np.diff(clock) > 0)
    assert clock[-1] - clock[0] > 2.0 * wall     # faster than real time, even on a busy machine


def test_blocks_at_full_speed_match_one_step_at_a_time(sims):
    # real_time_factor 0 runs compiled blocks of up to MAX_BLOCK_STEPS steps; a block ends
    # where the command times out, so the trajectory is the step-by-step one, bit for bit
    timeout = 0.3
    sim = sims(PANDA, start_paused=True, publish_clock=False, real_time_factor=0.0,
               command_timeout=timeout)
    robot = RobotModel.from_urdf_file(PANDA)
    sim.wait_subscribed(sim.commands)
    command = np.linspace(-3.0, 3.0, robot.dof)
    command[1] = 2.0 * robot.effort_limit[1]      # saturated at the effort limit
    applied = np.clip(command, -robot.effort_limit, robot.effort_limit)
    answers = [sim.step(1)]                     # before the command: nothing applied
    assert not np.any(answers[0].state.effort)
    sim.command(command)

    def arrived():   # one step at a time: the command came just before the step applying it
        answers.append(sim.step(1))
        assert answers[-1].success, answers[-1].message
        return np.allclose(answers[-1].state.effort, applied)
    wait_for(arrived, what='the command applied')
    received = answers[-2].sim_time            # the sim time the command arrived at
    q = np.array([0.3, -0.5, 0.2, -2.0, 0.1, 1.8, 0.5])
    qd = np.array([0.5, -0.2, 0.1, 0.3, -0.4, 0.2, 0.1])
    answer = sim.call(SetJointState, 'set_state', name=list(robot.joint_names),
                      position=q.tolist(), velocity=qd.tolist())
    assert answer.success, answer.message
    start = answers[-1].sim_time
    assert sim.call(SetBool, 'pause', data=False).success
    wait_for(lambda: any(stamp_of(s) > start + 2.0 * timeout for s in list(sim.states)),
             what='the simulation past the command timeout')
    assert sim.call(SetBool, 'pause', data=True).success
    sim.states.clear()                          # the state is published again while paused
    wait_for(lambda: len(sim.states) >= 2 and stamp_of(sim.states[-1]) == stamp_of(
        sim.states[-2]), what='the paused state twice')
    final = sim.states[-1]
    steps = int(round((stamp_of(final) - start) / 1e-3))
    # the core, one step at a time, with the node's command-timeout test before each step
    core = Simulator(robot, dt=1e-3, friction_velocity=1e-3)
    core.set_state(q, qd)
    core.t = start
    core.set_effort(command)
    for _ in range(steps):
        if not core.t - received <= timeout and np.any(core.effort):
            core.set_effort(np.zeros(robot.dof))
        core.step()
    assert 200 < steps and not np.any(core.effort)
    assert abs(core.t - stamp_of(final)) < 1e-6
    np.testing.assert_array_equal(np.array(final.position), core.q)
    np.testing.assert_array_equal(np.array(final.velocity), core.qd)
    assert sim.process.output().count('dropped to zero') == 1


def test_command_timeout_saturation_and_named_efforts(sims):
    # commands ordered by the joints parameter (here the reverse of the model's order)
    sim = sims(ARM_2R, start_paused=True, publish_clock=False, command_timeout=0.05,
               gravity=[0.0, 0.0, 0.0], joints=['elbow', 'shoulder'])
    robot = RobotModel.from_urdf_file(ARM_2R)
    assert robot.joint_names == ('shoulder', 'elbow')
    limit = robot.effort_limit   # 500 N m each
    sim.wait_subscribed(sim.commands)
    sim.command([3.0, -2.0])
    answer = sim.step_until_effort([-2.0, 3.0])
    # saturation at the URDF effort limit
    sim.command([-1e4, 1e4])
    answer = sim.step_until_effort([limit[0], -limit[1]])
    assert answer.state.effort[0] == 500.0
    # efforts by name on ~/joint_commands: unnamed joints keep their command
    sim.wait_subscribed(sim.joint_commands)
    sim.joint_commands.publish(JointState(name=['elbow'], effort=[7.5]))
    sim.step_until_effort([limit[0], 7.5])
    # no command for 0.05 s of sim time: the effort drops to zero, logged once
    answer = sim.step(49)
    assert np.allclose(answer.state.effort, [limit[0], 7.5])
    answer = sim.step(10)
    assert np.allclose(answer.state.effort, [0.0, 0.0])
    sim.step(100)
    assert sim.process.output().count('dropped to zero') == 1
    # a new command applies again
    sim.command([1.0, 1.0])
    sim.step_until_effort([1.0, 1.0])
    assert 'commands resumed' in sim.process.output()


def test_position_limit_is_a_stop(sims):
    robot = RobotModel.from_urdf_file(PANDA)
    sim = sims(PANDA, start_paused=True, publish_clock=False, command_timeout=0.0,
               gravity=[0.0, 0.0, 0.0])
    sim.wait_subscribed(sim.commands)
    push = np.zeros(robot.dof)
    push[0] = robot.effort_limit[0]      # full effort on joint 1 toward its upper limit
    sim.command(push)
    sim.step_until_effort(push)
    core = Simulator(robot, dt=1e-3)
    core.robot.gravity = [0.0, 0.0, 0.0]
    core.set_effort(push)
    start = sim.call(SetJointState, 'set_state', name=list(robot.joint_names),
                     position=core.q.tolist(), velocity=[0.0] * robot.dof)
    assert start.success, start.message
    free = RobotModel.from_urdf_file(PANDA)
    free.gravity = [0.0, 0.0, 0.0]
    unlimited = Simulator(free, dt=1e-3, limits=False)
    unlimited.set_effort(push)
    positions = []
    for _ in range(15):                  # 3 s of sim time
        answer = sim.step(200)
        assert answer.success, answer.message
        positions.append(answer.state.position[0])
        core.step(200)
        unlimited.step(200)
        assert answer.state.position[0] == pytest.approx(core.q[0], abs=1e-9)
    upper = robot.upper[0]
    assert unlimited.q[0] > upper + 3.0  # without the stop the joint would run far past it
    assert max(positions) > upper        # it reached the stop (a stiff spring: it yields a bit)
    assert max(positions) < upper + 0.2  # and was stopped there, not tunnelled through
    assert abs(answer.state.velocity[0]) < 1e-2
    assert np.ptp(positions[-5:]) < 1e-2  # resting against the stop


def test_steady_tip_wrench_is_held_by_minus_jacobian_transpose_force(sims):
    robot = RobotModel.from_urdf_file(PANDA)
    q0 = np.array([0.2, 0.4, -0.3, -1.6, 0.2, 1.9, 0.5])
    force = np.array([15.0, -10.0, 20.0, 0.0, 0.5, 0.0])    # N and N m on the TCP, world axes
    tau = (robot.gravity_torques(q0)
           - robot.jacobian(q0, 'panda_hand_tcp').T @ force)
    assert np.all(np.abs(tau) < robot.effort_limit)
    sim = sims(PANDA, start_paused=True, publish_clock=False, command_timeout=0.0,
               **{f'initial_positions.{name}': float(v)
                  for name, v in zip(robot.joint_names, q0)})
    sim.wait_subscribed(sim.commands)
    sim.wait_subscribed(sim.wrenches)
    sim.command(tau)
    sim.step_until_effort(tau)
    wrench = WrenchStamped()
    wrench.header.frame_id = 'panda_hand_tcp'
    wrench.wrench.force.x, wrench.wrench.force.y, wrench.wrench.force.z = force[:3]
    wrench.wrench.torque.x, wrench.wrench.torque.y, wrench.wrench.torque.z = force[3:]

    def drift_after(steps: int) -> float:
        answer = sim.call(SetJointState, 'set_state', name=list(robot.joint_names),
                          position=q0.tolist(), velocity=[0.0] * robot.dof)
        assert answer.success, answer.message
        answer = sim.step(steps)
        assert answer.success, answer.message
        return float(np.abs(np.array(answer.state.position) - q0).max())

    # without the wrench, the effort -J^T F pushes the arm away
    assert drift_after(50) > 1e-5
    sim.wrenches.publish(wrench)
    wait_for(lambda: drift_after(50) < 1e-9, what='the wrench to balance the effort')
    drift = drift_after(2000)             # 2 s of sim time in equilibrium
    assert drift < 1e-7, f'the held arm drifted {drift} rad'
    # a zero wrench removes it: the same effort moves the arm again
    sim.wrenches.publish(WrenchStamped(header=wrench.header))
    wait_for(lambda: drift_after(50) > 1e-5, what='the arm moving once the wrench is removed')


def wait_fault(sim: Sim) -> DiagnosticStatus:
    def faulted():
        return any(s.level == DiagnosticStatus.ERROR and 'paused' in s.message
                   for array in sim.diagnostics for s in array.status)
    wait_for(faulted, START_TIMEOUT, 'a paused-by-fault diagnostic')   # includes the start
    return next(s for array in sim.diagnostics for s in array.status
                if s.level == DiagnosticStatus.ERROR)


def test_nan_command_pauses_and_services_keep_answering(sims):
    sim = sims(ARM_2R, publish_clock=False, diagnostics_period=0.2)
    sim.wait_subscribed(sim.commands)
    wait_for(lambda: len(sim.states) > 5, what='joint_states')
    sim.command([math.nan, 0.0])
    status = wait_fault(sim)
    assert 'diverged' in status.message
    values = {kv.key: kv.value for kv in status.values}
    assert values['paused'] == 'True'
    # the diagnostics carry the achieved real-time factor and step-time statistics
    assert float(values['real_time_factor_target']) == 1.0
    assert float(values['real_time_factor_achieved']) >= 0.0
    assert float(values['step_p50_ms']) > 0.0
    assert float(values['step_max_ms']) >= float(values['step_p99_ms'])
    assert 'simulation diverged' in sim.process.output()
    # the state was kept finite (the last good step) and the node still serves
    refused = sim.step(1)
    assert not refused.success and 'fault' in refused.message
    assert all(math.isfinite(v) for v in refused.state.position)
    answer = sim.call(Trigger, 'reset')
    assert answer.success and 'cleared' in answer.message
    answer = sim.step(10)
    assert answer.success, answer.message
    assert all(math.isfinite(v) for v in answer.state.position)
    assert sim.process.alive()


def test_huge_step_pauses_on_divergence(sims):
    sim = sims(ARM_2R, publish_clock=False, dt=0.3, real_time_factor=0.0,
               integrator='semi_implicit_euler', diagnostics_period=0.2,
               **{'initial_positions.shoulder': -1.0, 'initial_positions.elbow': 0.8})
    status = wait_fault(sim)
    assert 'diverged' in status.message
    assert 'energy grew' in status.message or 'non-finite' in status.message
    answer = sim.call(SetJointState, 'set_state', name=['shoulder'], position=[0.0],
                      velocity=[])
    assert answer.success and 'cleared' in answer.message
    assert all(math.isfinite(v) for v in answer.state.position + answer.state.velocity)
    assert sim.process.alive()


def test_waits_for_a_model_on_the_topic_and_refuses_until_then(sims):
    sim = sims('', start_paused=True)
    answer = sim.step(1)
    assert not answer.success and 'no robot model' in answer.message
    # a description on the (transient local) robot_description topic loads the model
    qos = QoSProfile(depth=1, durability=DurabilityPolicy.TRANSIENT_LOCAL,
                     reliability=ReliabilityPolicy.RELIABLE)
    publisher = sim.node.create_publisher(String, 'robot_description', qos)
    with open(ARM_2R, encoding='utf-8') as stream:
        publisher.publish(String(data=stream.read()))
    answers = []

    def loaded():
        answers.append(sim.step(1))
        return answers[-1].success
    wait_for(loaded, what='the model from the robot_description topic')
    assert list(answers[-1].state.name) == ['shoulder', 'elbow']


DELTA = os.path.join(ROOT, 'urdf', 'delta_rl5.urdf')


def delta_parameters(**overrides) -> dict:
    """Return config/delta_simulator.yaml's parameters, flattened for NodeProcess."""
    with open(os.path.join(ROOT, 'config', 'delta_simulator.yaml'), encoding='utf-8') as stream:
        parameters = yaml.safe_load(stream)['simulator']['ros__parameters']
    flat = {key: value for key, value in parameters.items() if key != 'initial_positions'}
    flat.update({f'initial_positions.{joint}': value
                 for joint, value in parameters['initial_positions'].items()})
    flat.update(overrides)
    return flat


def test_closed_chain_delta_robot(sims):
    """The Delta robot with its loops: held by the motors, projected states, lock pauses."""
    from test_delta_robot import assembled, PLATFORMS
    robot = RobotModel.from_urdf_file(DELTA)
    chain = ClosedChain.from_yaml(robot, os.path.join(ROOT, 'config', 'delta_loops.yaml'))
    # no limit stops: the free fall below reaches the singularity before a shoulder's limit
    sim = sims(DELTA, **delta_parameters(start_paused=True, publish_clock=False,
                                         command_timeout=0.0, position_limits=False))
    forces = []
    sim.node.create_subscription(Float64MultiArray, 'simulator/constraint_forces',
                                 forces.append, 10)
    start = sim.step(1)
    assert start.success, start.message
    np.testing.assert_allclose(start.state.position, assembled(PLATFORMS[0]), atol=1e-4)

    # the motors hold the platform still with the closed chain's holding torques
    answer = sim.call(SetJointState, 'set_state', name=list(robot.joint_names),
                      position=list(assembled(PLATFORMS[1])), velocity=[0.0] * 15)
    assert answer.success, answer.message
    tau, _ = chain.inverse_dynamics(np.array(answer.state.position), np.zeros(15),
                                    np.zeros(15))
    sim.wait_subscribed(sim.commands)
    sim.command(tau)
    sim.step_until_effort(_delta_effort(tau, chain))
    held = sim.step(200)
    assert held.success, held.message
    platform = robot.link_pose(np.array(held.state.position), 'leg1_platform')
    np.testing.assert_allclose(platform[:3, 3], PLATFORMS[1], atol=1e-8)
    np.testing.assert_allclose(platform[:3, :3], np.eye(3), atol=1e-10)
    wait_for(lambda: len(forces) > 0, what='constraint forces')
    assert len(forces[-1].data) == 12 and np.all(np.isfinite(forces[-1].data))

    # set_state with the motors only: the passive joints follow (the closed-form assembly)
    target = assembled(PLATFORMS[2])
    names = ['leg1_shoulder', 'leg2_shoulder', 'leg3_shoulder']
    answer = sim.call(SetJointState, 'set_state', name=names,
                      position=list(target[chain.actuated]), velocity=[])
    assert answer.success, answer.message
    np.testing.assert_allclose(answer.state.position, target, atol=1e-8)

    # no motor torque: the platform falls into a constraint singularity and the node pauses
    sim.command([0.0, 0.0, 0.0])
    sim.step_until_effort(np.zeros(15))
    answer = sim.call(SetJointState, 'set_state', name=list(robot.joint_names),
                      position=list(assembled(PLATFORMS[1])), velocity=[0.0] * 15)
    assert answer.success, answer.message
    fall = sim.step(2000)
    assert not fall.success and 'singular configuration' in fall.message, fall.message
    assert 0.2 < fall.sim_time - answer.state.header.stamp.sec - \
        answer.state.header.stamp.nanosec * 1e-9 < 1.0
    assert not sim.step(1).success                      # paused by the fault
    assert sim.call(Trigger, 'reset').success           # and back
    assert sim.step(1).success


def _delta_effort(tau, chain) -> np.ndarray:
    effort = np.zeros(15)
    effort[chain.actuated] = tau
    return effort


def test_bad_loops_file_is_reported_and_services_say_why(sims, tmp_path):
    loops = tmp_path / 'loops.yaml'
    loops.write_text('closures:\n  - frame_a: {link: nowhere}\n    frame_b: {link: base}\n')
    sim = sims(DELTA, loops=str(loops), start_paused=True, publish_clock=False)
    answer = sim.step(1)
    assert not answer.success
    assert "cannot simulate 'delta_rl5'" in answer.message and 'nowhere' in answer.message
