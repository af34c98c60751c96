#!/usr/bin/env python3
# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
A payload the gravity compensator does not know about: the sag, and what telling it does.

Runs simulator_node and inverse_dynamics_node (gravity compensation) on the
Panda arm through ROS, in lockstep (the simulator advances each 1 ms only
after the compensator answered its state, so the run is the same whatever the
machine's load), from the Panda's ready pose (the hand pointing down). Then:

1. ``hold`` s: the arm holds (exact static balance);
2. the payload of config/payload_demo_simulator.yaml (1.5 kg, 5 cm beyond the
   tool centre point ``panda_hand_tcp``) appears on the simulated arm only
   (the simulator's ``~/set_payload``): the compensator's g(q) lacks its
   weight, the arm sags for ``sag`` s;
3. the compensator is told (its ``~/set_payload``) and the loop runs
   ``recover`` s more.

Once for each damping gain ``kd`` of the compensator (1/s; it sends
g(q) - M(q) kd qd). What physics predicts, and the run shows:

* the sag starts from rest with the acceleration of the unmodelled weight,
  qdd = -M_p(q)^-1 (g_p(q) - g(q)) (M_p, g_p: the arm with the payload), so
  the tool centre point accelerates at J(q) qdd, about 2.5 m/s^2 downward here;
  with kd > 0 the sag tends to the speed where the damping balances the
  weight, qd = -(kd M(q))^-1 (g_p(q) - g(q));
* telling the compensator removes the unbalanced torque, nothing more: with
  pure gravity compensation (kd = 0) the arm stops accelerating but keeps
  the momentum it gained, so it goes on moving down (its kinetic energy stays
  constant, up to the one-period hold of the command); with kd > 0 it comes
  to rest, its speed decaying as exp(-kd t). In neither case does it come back
  up: gravity compensation has no position feedback, and returning to the
  pose needs a position controller (computed_torque mode with kp).

    scripts/with_ros.sh python examples/payload_demo.py      # prints figures, writes the plot

(after ``make build``; ``--help`` for the options). The nodes run in their own
namespace (``--namespace``, /clock remapped into it), so a running ``make run``
is not disturbed. ``core_prediction`` replays the same events with the core
``Simulator``; test/test_payload_demo.py checks the run against it.
"""

import argparse
import math
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from typing import Optional

import numpy as np
import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PANDA = os.path.join(ROOT, 'urdf', 'panda_arm.urdf')
PAYLOAD_CONFIG = os.path.join(ROOT, 'config', 'payload_demo_simulator.yaml')
PLOT = os.path.join(ROOT, 'docs', 'images', 'payload_demo.png')
READY = np.array([0.0, -math.pi / 4, 0.0, -3 * math.pi / 4, 0.0, math.pi / 2, math.pi / 4])
TOOL = 'panda_hand_tcp'
DT = 1e-3
TIMEOUT = 60.0


def configured_payload(path: str = PAYLOAD_CONFIG) -> tuple:
    """Return (link, mass kg, com (3,) m, inertia 3x3 or None) of a simulator payload file."""
    from ros_dynamics.bringup import section
    parameters = section(path, 'simulator')   # its /**/simulator section
    m, cx, cy, cz, ixx, ixy, ixz, iyy, iyz, izz = (float(v) for v in
                                                   parameters['payload_inertia'])
    tensor = np.array([[ixx, ixy, ixz], [ixy, iyy, iyz], [ixz, iyz, izz]])
    return (parameters['payload_link'], m, np.array([cx, cy, cz]),
            tensor if tensor.any() else None)


class Loop:
    """simulator_node + inverse_dynamics_node in lockstep, and a client recording both."""

    def __init__(self, namespace: str, q0: np.ndarray) -> None:
        """Start both nodes in ``namespace`` (paused at q0) and the client; close() stops them."""
        import rclpy
        from rclpy.context import Context
        from rclpy.executors import SingleThreadedExecutor
        from rclpy.qos import QoSProfile, ReliabilityPolicy
        from ros_dynamics.bringup import executable_path
        from sensor_msgs.msg import JointState
        from std_msgs.msg import Float64MultiArray
        self.namespace, self.processes, self._files = namespace.rstrip('/'), [], []
        ns = self.namespace
        private = ['-r', f'/clock:={ns}/clock', '-r', f'/diagnostics:={ns}/diagnostics']
        joints = ['panda_joint1', 'panda_joint2', 'panda_joint3', 'panda_joint4',
                  'panda_joint5', 'panda_joint6', 'panda_joint7']
        self.joints = joints
        nodes = {
            'simulator': ('simulator_node', {
                'urdf_path': PANDA, 'lockstep': True, 'start_paused': True,
                'real_time_factor': 0.0, 'dt': DT, 'lockstep_timeout': TIMEOUT,
                'lockstep_answers': 2,
                'damping': False, 'friction': False,
                **{f'initial_positions.{j}': float(v) for j, v in zip(joints, q0)}}, []),
            'inverse_dynamics': ('inverse_dynamics_node', {
                'urdf_path': PANDA, 'use_sim_time': True, 'mode': 'gravity_compensation',
                'state_timeout': TIMEOUT, 'kd': [0.0]},
                ['-r', f'commands:={ns}/simulator/commands'])}
        try:
            for name, (executable, parameters, remaps) in nodes.items():
                handle = tempfile.NamedTemporaryFile('w', suffix='.yaml', delete=False)
                yaml.safe_dump({f'{ns}/{name}': {'ros__parameters': parameters}}, handle)
                handle.close()
                self._files.append(handle.name)
                log = tempfile.NamedTemporaryFile('w', suffix='.log', delete=False)
                self._files.append(log.name)
                self.processes.append(subprocess.Popen(
                    [executable_path(executable), '--ros-args', '-r', f'__ns:={ns}',
                     '-r', f'__node:={name}', '--params-file', handle.name] + private + remaps,
                    stdout=log, stderr=subprocess.STDOUT, start_new_session=True))
            self.context = Context()
            rclpy.init(context=self.context)
            self.node = rclpy.create_node(f'payload_demo_{os.getpid()}', namespace=ns,
                                          context=self.context)
            self.executor = SingleThreadedExecutor(context=self.context)
            self.executor.add_node(self.node)
            self.states, self.commands, self._clients = [], [], {}
            self.hold_at, self.held = math.inf, None
            every = QoSProfile(depth=100000, reliability=ReliabilityPolicy.RELIABLE)
            self._answers = self.node.create_publisher(JointState, 'simulator/joint_commands',
                                                       every)
            self._empty = JointState()
            self.node.create_subscription(JointState, 'joint_states', self._on_state, every)
            self.node.create_subscription(Float64MultiArray, 'simulator/commands',
                                          lambda m: self.commands.append(np.array(m.data)),
                                          every)
            self._stopping = False
            self._thread = threading.Thread(target=self._spin, daemon=True)
            self._thread.start()
            self._wait(lambda: self.node.count_publishers('simulator/commands') > 0,
                       'the compensator')
        except BaseException:
            self.close()
            raise

    def _on_state(self, message) -> None:
        """
        Record a state and answer it, unless it is the one to hold at.

        The client is the simulator's second lockstep participant: its answer
        (an empty JointState on ``~/joint_commands``, which changes no effort)
        lets the simulator advance, so withholding it holds the simulation at
        an exact sim time while an event (a payload) is applied.
        """
        self.states.append(message)
        if self.held is None and stamp(message) >= self.hold_at - 1e-9:
            self.held = message
            return
        self._answers.publish(self._empty)

    def release(self, hold_at: float = math.inf) -> None:
        """Answer the held state (the simulation goes on) and hold next at ``hold_at``."""
        held, self.hold_at = self.held, hold_at
        if held is not None:
            self.held = None
            self._answers.publish(self._empty)

    def _spin(self) -> None:
        while self.context.ok() and not self._stopping:
            try:
                self.executor.spin_once(timeout_sec=0.05)
            except Exception:  # noqa: B902 - shutting down
                if not self.context.ok():
                    return
                raise

    def _wait(self, condition, what: str, timeout: float = TIMEOUT) -> None:
        deadline = time.monotonic() + timeout
        while not condition():
            self._exited(what)
            if time.monotonic() > deadline:
                raise TimeoutError(f'no {what} within {timeout} s:\n{self.logs()}')
            time.sleep(0.01)

    def _exited(self, what: str) -> None:
        """Raise RuntimeError if a node exited (while waiting for ``what``)."""
        for process in self.processes:
            if process.poll() is not None:
                raise RuntimeError(f'a node exited with status {process.returncode} '
                                   f'while waiting for {what}:\n{self.logs()}')

    def logs(self) -> str:
        """Return the end of what the nodes printed."""
        text = []
        for path in self._files[1::2]:
            with open(path, encoding='utf-8', errors='replace') as stream:
                text.append(stream.read()[-2000:])
        return '\n'.join(text)

    def call(self, service_type, name: str, request):
        """Call a service of the nodes (waiting for it); return the response."""
        from ros_dynamics.nodes.clients import answer
        client = self._clients.get(name)
        if client is None:
            client = self._clients[name] = self.node.create_client(service_type, name)
        if not client.wait_for_service(timeout_sec=TIMEOUT):
            raise TimeoutError(f'service {name} not available')
        # every request of this demo may be served twice: sent again when the answer is lost
        response = answer(client, request, TIMEOUT, check=lambda: self._exited(
            f'an answer from {name}'))
        if response is None:
            raise TimeoutError(f'no answer from {name} within {TIMEOUT} s:\n{self.logs()}')
        return response

    def checked(self, service_type, name: str, request) -> str:
        """Call a service; raise RuntimeError unless it succeeded; return its message."""
        answer = self.call(service_type, name, request)
        if not answer.success:
            raise RuntimeError(f'{name}: {answer.message}')
        return answer.message

    def set_kd(self, kd: float) -> None:
        """Set the compensator's damping gain kd (1/s)."""
        from rcl_interfaces.srv import SetParameters
        from rclpy.parameter import Parameter
        request = SetParameters.Request(parameters=[
            Parameter('kd', value=[float(kd)]).to_parameter_msg()])
        result = self.call(SetParameters, 'inverse_dynamics/set_parameters', request).results[0]
        if not result.successful:
            raise RuntimeError(f'kd: {result.reason}')

    def set_payload(self, node: str, link: str, mass: float, com, inertia=None) -> str:
        """Attach a payload to ``link`` of one node's model (link '' clears every payload)."""
        from geometry_msgs.msg import Inertia
        from ros_dynamics.srv import SetPayload
        message = Inertia(m=float(mass))
        message.com.x, message.com.y, message.com.z = (float(c) for c in com)
        if inertia is not None:
            (message.ixx, message.ixy, message.ixz, message.iyy, message.iyz,
             message.izz) = (float(inertia[i, j]) for i, j in
                             ((0, 0), (0, 1), (0, 2), (1, 1), (1, 2), (2, 2)))
        return self.checked(SetPayload, f'{node}/set_payload',
                            SetPayload.Request(link=link, inertia=message))

    def start_from(self, q: np.ndarray) -> None:
        """
        Set the state (q, rest) while paused, clear the records, run; the next hold is due.

        In lockstep each state goes out once: set it again until this client saw
        it and the compensator answered it exactly once (both were listening).
        """
        from ros_dynamics.srv import SetJointState
        from std_srvs.srv import SetBool
        self.checked(SetBool, 'simulator/pause', SetBool.Request(data=True))
        self.held, self.hold_at = None, math.inf   # a state held before: dropped
        for _ in range(10):
            del self.states[:], self.commands[:]
            self.checked(SetJointState, 'simulator/set_state', SetJointState.Request(
                name=self.joints, position=q.tolist(), velocity=[0.0] * len(q)))
            deadline = time.monotonic() + 5.0
            while not (self.states and self.commands) and time.monotonic() < deadline:
                time.sleep(0.01)
            time.sleep(0.2)
            if len(self.states) == 1 and len(self.commands) == 1:
                self.hold_at = stamp(self.states[0])   # held at the next state: run_until
                self.checked(SetBool, 'simulator/pause', SetBool.Request(data=False))
                return
        raise RuntimeError(f'{len(self.states)} start states, {len(self.commands)} answers')

    def run_until(self, sim_time: float) -> int:
        """
        Let the loop run to the state at ``sim_time`` s and hold it there; return its index.

        Returns once the compensator answered the held state: the next period
        starts only after ``release``, so an event applied meanwhile (a payload)
        acts from exactly that state on.
        """
        self.release(sim_time)
        self._wait(lambda: self.held is not None and len(self.commands) >= len(self.states),
                   f'the state at sim time {sim_time:.6f} s')
        return len(self.states) - 1

    def close(self) -> None:
        """Stop the client and the nodes (SIGINT, then kill), remove the parameter files."""
        import rclpy
        if getattr(self, '_thread', None) is not None:
            self._stopping = True
            self._thread.join(timeout=5.0)
            self.executor.shutdown(timeout_sec=1.0)
            self.node.destroy_node()
        if getattr(self, 'context', None) is not None:
            rclpy.try_shutdown(context=self.context)
        for process in self.processes:
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGINT)
        for process in self.processes:
            try:
                process.wait(timeout=10.0)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()
        for path in self._files:
            os.unlink(path)


def stamp(message) -> float:
    """Return a message's header stamp in s."""
    return message.header.stamp.sec + message.header.stamp.nanosec * 1e-9


def run_demo(kds=(0.0, 10.0), hold: float = 0.2, sag: float = 0.2, recover: float = 0.5,
             payload: Optional[tuple] = None, namespace: str = '/payload_demo',
             q0: np.ndarray = READY) -> list:
    """
    Run the three phases once per damping gain; return one dict per run.

    Each: ``kd``; ``t`` (K,) s from the start, ``q``, ``qd`` (K, 7) every state
    published, ``commands`` (K, 7) the compensator's answer to each;
    ``payload_step`` (the plant carries the payload in the steps from this state
    on), ``told_step`` (the compensator was told after answering this state);
    ``wall`` s.
    """
    link, mass, com, inertia = payload or configured_payload()
    loop = Loop(namespace, q0)
    runs = []
    try:
        for kd in kds:
            loop.set_payload('simulator', '', 0.0, (0.0, 0.0, 0.0))          # none yet
            loop.set_payload('inverse_dynamics', '', 0.0, (0.0, 0.0, 0.0))
            loop.set_kd(kd)
            loop.start_from(q0)
            begin, start = time.monotonic(), stamp(loop.states[0])
            added = loop.run_until(start + hold)
            loop.set_payload('simulator', link, mass, com, inertia)
            told = loop.run_until(stamp(loop.states[added]) + sag)
            loop.set_payload('inverse_dynamics', link, mass, com, inertia)
            end = loop.run_until(stamp(loop.states[told]) + recover)
            states = loop.states[:end + 1]
            run = {'kd': kd, 't': np.array([stamp(m) for m in states]) - start,
                   'q': np.array([m.position for m in states]),
                   'qd': np.array([m.velocity for m in states]),
                   'commands': np.array(loop.commands[:end + 1]),
                   'payload_step': added, 'told_step': told, 'wall': time.monotonic() - begin}
            runs.append(run)
    finally:
        loop.close()
    return runs


def compensator_command(model, q: np.ndarray, qd: np.ndarray, kd: float) -> np.ndarray:
    """Return inverse_dynamics_node's gravity compensation, g(q) - M(q) kd qd, clamped (N m)."""
    tau = model.gravity_torques(q)
    if kd:
        tau = tau - model.mass_matrix(q) @ (np.full(model.dof, kd) * qd)
    return np.clip(tau, -model.effort_limit, model.effort_limit)


def core_prediction(run: dict, payload: Optional[tuple] = None) -> dict:
    """
    Replay a run's events with the core Simulator: q, qd and the commands, (K, 7) each.

    The compensator's command g(q_k) - M(q_k) kd qd_k (clamped to the effort
    limits) is held over each 1 ms step; the plant carries the payload from
    ``payload_step`` on, the compensator's model after ``told_step``.
    """
    from ros_dynamics import RobotModel
    from ros_dynamics.simulation.simulator import Simulator
    link, mass, com, inertia = payload or configured_payload()
    plant, model = RobotModel.from_urdf_file(PANDA), RobotModel.from_urdf_file(PANDA)
    sim = Simulator(plant, dt=DT, q0=run['q'][0], qd0=run['qd'][0], damping=False,
                    friction=False)
    qs, qds, commands = [], [], []
    for k in range(len(run['t'])):
        if k == run['told_step'] + 1:
            model.set_payload(link, mass, com, inertia)
        if k == run['payload_step']:
            plant.set_payload(link, mass, com, inertia)
        q, qd = sim.q.copy(), sim.qd.copy()
        tau = compensator_command(model, q, qd, run['kd'])
        qs.append(q)
        qds.append(qd)
        commands.append(tau)
        sim.set_effort(tau)
        sim.step()
    return {'q': np.array(qs), 'qd': np.array(qds), 'commands': np.array(commands)}


def tool_positions(q: np.ndarray) -> np.ndarray:
    """Return the tool centre point's position in the base frame (m), (K, 3)."""
    from ros_dynamics import RobotModel
    robot = RobotModel.from_urdf_file(PANDA)
    return np.array([robot.link_pose(row, TOOL)[:3, 3] for row in q])


def sag_prediction(q: np.ndarray, payload: Optional[tuple] = None) -> dict:
    """
    Return what physics predicts at rest at q for the unmodelled payload.

    ``torque`` (7,) N m: g_p(q) - g(q), the weight the compensator misses;
    ``acceleration`` (3,) m/s^2: the tool's J(q) qdd with qdd = -M_p^-1 (g_p - g)
    (from rest, so no velocity product term); ``speed_per_kd`` (3,) m/s times
    1/s: the tool velocity at which -M(q) kd qd balances the missing torque,
    divided out by kd (qd = -(kd M)^-1 (g_p - g)).
    """
    from ros_dynamics import RobotModel
    link, mass, com, inertia = payload or configured_payload()
    bare, loaded = RobotModel.from_urdf_file(PANDA), RobotModel.from_urdf_file(PANDA)
    loaded.set_payload(link, mass, com, inertia)
    missing = loaded.gravity_torques(q) - bare.gravity_torques(q)
    jacobian = bare.jacobian(q, TOOL)[:3]
    return {'torque': missing,
            'acceleration': jacobian @ np.linalg.solve(loaded.mass_matrix(q), -missing),
            'speed_per_kd': jacobian @ np.linalg.solve(bare.mass_matrix(q), -missing)}


def summary(run: dict, payload: Optional[tuple] = None) -> dict:
    """
    Return a run's figures.

    ``drop`` (K,) the tool's drop (m, positive down), ``speed`` (K,) its sinking
    speed (m/s), ``energy`` (K,) the kinetic energy qd^T M_p(q) qd / 2 of the
    arm with its payload (J), and their values at ``told_step`` and at the end.
    """
    from ros_dynamics import RobotModel
    link, mass, com, inertia = payload or configured_payload()
    loaded = RobotModel.from_urdf_file(PANDA)
    loaded.set_payload(link, mass, com, inertia)
    tool = tool_positions(run['q'])
    drop = tool[0, 2] - tool[:, 2]
    speed = -np.gradient(tool[:, 2], run['t'])
    energy = np.array([0.5 * v @ loaded.mass_matrix(q) @ v for q, v in zip(run['q'], run['qd'])])
    added, told = run['payload_step'], run['told_step']
    return {'drop': drop, 'speed': speed, 'energy': energy, 'drop_told': drop[told],
            'speed_told': speed[told], 'energy_told': energy[told], 'drop_end': drop[-1],
            'speed_end': speed[-1], 'energy_end': energy[-1],
            'sag_time': run['t'][told] - run['t'][added]}


def plot(runs: list, path: str = PLOT) -> str:
    """Plot the tool's drop and vertical speed of each run, with the events, to ``path``."""
    import matplotlib
    matplotlib.use('Agg')
    import matplotlib.pyplot as plt
    figure, (top, middle, bottom) = plt.subplots(3, 1, figsize=(8, 8), sharex=True)
    for run, color in zip(runs, ('tab:red', 'tab:blue', 'tab:green', 'tab:purple')):
        figures, core = summary(run), core_prediction(run)
        label = f'kd = {run["kd"]:g} 1/s'
        if not run['kd']:
            label += ' (pure gravity compensation)'
        top.plot(run['t'], figures['drop'] * 1e3, color=color, label=label)
        core_tool = tool_positions(core['q'][::25])
        top.plot(run['t'][::25], (core_tool[0, 2] - core_tool[:, 2]) * 1e3, 'o',
                 color=color, markersize=3, fillstyle='none',
                 label='core Simulator, same events' if color == 'tab:red' else None)
        middle.plot(run['t'], figures['speed'], color=color)
        bottom.plot(run['t'], figures['energy'], color=color)
        for axis in (top, middle, bottom):
            axis.axvline(run['t'][run['payload_step']], color='0.5', linestyle=':')
            axis.axvline(run['t'][run['told_step']], color=color, linestyle='--', linewidth=0.8)
    top.set_ylabel('tool drop (mm)')
    middle.set_ylabel('tool sinking speed (m/s)')
    bottom.set_ylabel('kinetic energy (J)')
    bottom.set_xlabel('sim time (s)')
    link, mass, com, _ = configured_payload()
    top.set_title(f'{mass:g} kg payload unknown to the gravity compensator (dotted: it '
                  'appears on the simulated arm; dashed: the compensator is told)', fontsize=9)
    top.legend(fontsize=8)
    for axis in (top, middle, bottom):
        axis.grid(alpha=0.3)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    figure.savefig(path, dpi=100, bbox_inches='tight')
    plt.close(figure)
    return path


def main(argv: Optional[list] = None) -> int:
    """Run the demo, print the figures, write the plot."""
    parser = argparse.ArgumentParser(description=__doc__.strip().splitlines()[0])
    parser.add_argument('--kd', type=float, nargs='+', default=[0.0, 10.0],
                        help="the compensator's damping gains, one run each (1/s)")
    parser.add_argument('--hold', type=float, default=0.2, help='s before the payload appears')
    parser.add_argument('--sag', type=float, default=0.2,
                        help='s before the compensator is told')
    parser.add_argument('--recover', type=float, default=0.5, help='s after it is told')
    parser.add_argument('--namespace', default='/payload_demo')
    parser.add_argument('--plot', default=PLOT, help='the plot (PNG); "" for none')
    args = parser.parse_args(argv)
    link, mass, com, _ = payload = configured_payload()
    predicted = sag_prediction(READY, payload)
    print(f'payload {mass:g} kg at {com.tolist()} m in {link} (simulated arm only); the torque '
          f'the compensator misses: {np.round(predicted["torque"], 3).tolist()} N m')
    print(f'predicted tool acceleration from rest: {np.round(predicted["acceleration"], 4)} '
          'm/s^2 (x, y, z)')
    runs = run_demo(args.kd, args.hold, args.sag, args.recover, payload, args.namespace)
    for run in runs:
        figures, core = summary(run, payload), core_prediction(run, payload)
        print(f'kd {run["kd"]:g} 1/s: after {figures["sag_time"]:.3f} s of sag the tool '
              f'dropped {figures["drop_told"] * 1e3:.1f} mm, sinking at '
              f'{figures["speed_told"]:.3f} m/s, kinetic energy {figures["energy_told"]:.4f} J; '
              f'{run["t"][-1] - run["t"][run["told_step"]]:.3f} s after the compensator was '
              f'told: dropped {figures["drop_end"] * 1e3:.1f} mm, sinking at '
              f'{figures["speed_end"]:.4f} m/s, kinetic energy {figures["energy_end"]:.4g} J '
              f'(max joint speed {np.abs(run["qd"][-1]).max():.4f} rad/s); the core Simulator '
              f'agrees to {np.abs(run["q"] - core["q"]).max():.1e} rad, '
              f'{run["t"][-1]:.3f} s of sim time in {run["wall"]:.1f} s wall')
        if run['kd']:
            print(f'   damped sag speed predicted at the start pose: '
                  f'{-predicted["speed_per_kd"][2] / run["kd"]:.3f} m/s')
    if args.plot:
        print(f'plot: {plot(runs, args.plot)}')
    return 0


if __name__ == '__main__':
    sys.exit(main())
