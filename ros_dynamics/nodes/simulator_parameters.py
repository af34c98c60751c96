# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
The simulator node's parameters: their declarations, their checks, the initial positions.

A mixin of ``SimulatorNode`` (nodes/simulator_node.py), which the node's module documents;
the timing parameters are checked by ``ros_dynamics.simulation.schedule.Schedule``, the
others here, and every problem goes out in one ParameterError naming each parameter.
"""

import math

import numpy as np
from ros_dynamics.nodes.ground_contact import SimulatedGround
from ros_dynamics.nodes.joint_vectors import JointVectorMap
from ros_dynamics.nodes.parameters import declare, NON_NEGATIVE, ParameterError
from ros_dynamics.simulation.schedule import Schedule, ScheduleError
from ros_dynamics.simulation.simulator import INTEGRATORS


class SimulatorParameters:
    """The parameters of SimulatorNode (a mixin of an rclpy Node)."""

    def _read_parameters(self) -> None:
        def fixed(name, default, description, value_range=None, constraints='',
                  flexible=False):
            # read once: the physics thread and the model are built from them
            return declare(self, name, default, description, read_only=True,
                           value_range=value_range, constraints=constraints,
                           flexible=flexible)
        self._dt = fixed('dt', 0.001, 'fixed integration step (s, > 0)', NON_NEGATIVE, '> 0')
        self._integrator = fixed('integrator', '', "integrator; '' = rk4, or "
                                 'semi_implicit_euler with ground_contacts',
                                 constraints="'' or one of " + ', '.join(INTEGRATORS))
        self._rtf = fixed('real_time_factor', 1.0,
                          'sim seconds per wall second; 0 = as fast as possible', NON_NEGATIVE)
        self._publish_clock = fixed('publish_clock', True,
                                    'publish rosgraph_msgs/Clock on /clock (see clock_period)')
        self._clock_period = fixed('clock_period', 0.001,
                                   '/clock period (s of sim time up to real time, of wall time '
                                   'when faster); 0 = after every step', NON_NEGATIVE)
        self._sim_time_stamps = fixed(
            'sim_time_stamps', True,
            'stamp joint_states with simulated time (for nodes following /clock with '
            'use_sim_time); false: with this node clock (the wall clock unless use_sim_time), '
            "as a real arm's driver does")
        self._publish_rate = fixed('publish_rate', 500.0,
                                   'joint_states rate (Hz of sim time up to real time, of wall '
                                   'time when faster)', NON_NEGATIVE, '> 0')
        self._command_timeout = fixed('command_timeout', 0.5,
                                      'applied effort drops to zero when no command came for '
                                      'this long (s of sim time); 0 = never', NON_NEGATIVE)
        self._joints = list(fixed('joints', [''],
                                  'joint order of the Float64MultiArray on ~/commands; [""] = '
                                  'the model joint order', flexible=True))
        self._gravity = list(fixed('gravity', [0.0, 0.0, -9.81],
                                   'gravity acceleration in the root frame (m/s^2, 3 values)',
                                   flexible=True))
        self._use_damping = fixed('damping', True, 'apply the URDF <dynamics damping>')
        self._use_friction = fixed('friction', True,
                                   'apply the URDF <dynamics friction> as smoothed Coulomb '
                                   'friction')
        self._use_limits = fixed('position_limits', True,
                                 'apply the position limits as stiff damped stops')
        self._hold_until_command = fixed('hold_until_command', False,
                                         'hold the joints at the initial state until the first '
                                         'effort command')
        self._start_paused = fixed('start_paused', False,
                                   'start paused (~/pause false or ~/step to advance)')
        self._friction_velocity = fixed('friction_velocity', 1e-3,
                                        'velocity below which Coulomb friction is smoothed '
                                        '(rad/s or m/s, > 0)', NON_NEGATIVE, '> 0')
        self._energy_tolerance = fixed('energy_tolerance', 0.0,
                                       'relative energy growth tolerated with no input before '
                                       'the simulation counts as diverged; 0 = the integrator '
                                       'default', NON_NEGATIVE)
        self._diagnostics_period = fixed('diagnostics_period', 1.0,
                                         'period of /diagnostics (s, > 0)', NON_NEGATIVE, '> 0')
        self._report_period = fixed('pose_report_period', 0.0,
                                    'log the pose error every this many s; 0 = off',
                                    NON_NEGATIVE)
        self._odometry_topic = fixed('odometry_topic', 'odom', 'nav_msgs/Odometry of a floating '
                                     'or planar base (root_joint), with joint_states')
        self._odom_frame = fixed('odom_frame', 'odom', 'header.frame_id of the odometry')
        self._ground = SimulatedGround(self, fixed)   # ground_* (nodes/ground_contact.py)
        self._loops = str(fixed('loops', '',
                                'loop-closure YAML (path or package:// URL) for a closed '
                                'chain; empty = a tree'))
        self._baumgarte = (fixed('baumgarte_alpha', 10.0,
                                 'Baumgarte stabilisation of the closures, alpha (1/s)',
                                 NON_NEGATIVE),
                           fixed('baumgarte_beta', 10.0,
                                 'Baumgarte stabilisation of the closures, beta (1/s)',
                                 NON_NEGATIVE))
        self._lockstep = fixed('lockstep', False,
                               'advance only when lockstep_answers commands arrived after each '
                               'published state (deterministic closed loops)')
        self._control_period = fixed('control_period', 0.0,
                                     'lockstep: sim time between published states (s, a '
                                     'multiple of dt); 0 = every step', NON_NEGATIVE)
        self._lockstep_answers = fixed('lockstep_answers', 1,
                                       'lockstep: effort commands expected per period (one per '
                                       'controller)', value_range=(1, 1000))
        self._lockstep_timeout = fixed('lockstep_timeout', 1.0,
                                       'lockstep: wall seconds to wait for the commands before '
                                       'pausing with the reason', NON_NEGATIVE, '> 0')
        self._joints = [name for name in self._joints if name]
        problems = []
        if self._integrator not in INTEGRATORS + ('',):
            problems.append(f'integrator must be one of {", ".join(INTEGRATORS)}, '
                            f'got {self._integrator!r}')
        if len(self._gravity) != 3 or not all(math.isfinite(g) for g in self._gravity):
            problems.append(f'gravity must be 3 finite numbers (m/s^2), got {self._gravity}')
        if not (self._energy_tolerance >= 0):
            problems.append(f'energy_tolerance must be >= 0 (0: the integrator default), '
                            f'got {self._energy_tolerance}')
        if not (self._friction_velocity > 0):
            problems.append(f'friction_velocity must be > 0 rad/s, got {self._friction_velocity}')
        if not (self._diagnostics_period > 0):
            problems.append(f'diagnostics_period must be > 0 s, got {self._diagnostics_period}')
        if not (self._report_period >= 0):
            problems.append(f'pose_report_period must be >= 0 s, got {self._report_period}')
        if not all(math.isfinite(g) and g >= 0 for g in self._baumgarte):
            problems.append(f'baumgarte_alpha and baumgarte_beta must be >= 0 (1/s), got '
                            f'{self._baumgarte}')
        try:
            self._schedule = Schedule(
                dt=self._dt, real_time_factor=self._rtf, publish_rate=self._publish_rate,
                publish_clock=self._publish_clock, clock_period=self._clock_period,
                command_timeout=self._command_timeout,
                hold_until_command=self._hold_until_command, lockstep=self._lockstep,
                control_period=self._control_period, lockstep_answers=self._lockstep_answers,
                lockstep_timeout=self._lockstep_timeout)
        except ScheduleError as error:
            problems = error.problems + problems
        if problems:
            raise ParameterError('parameter ' + '; parameter '.join(problems),
                                 self.get_logger().name)

    def _initial_positions(self, model, vectors: JointVectorMap, base) -> np.ndarray:
        """Return the actuated joints' ``initial_positions.<joint>``, default 0 in the limits."""
        lower, upper = base.lower, base.upper
        q0 = np.clip(np.zeros(len(base.actuated)), lower, upper)
        overrides = getattr(self, '_parameter_overrides', {})
        for name in overrides:
            if name.startswith('initial_positions.') and name[18:] not in vectors.index:
                self.get_logger().warning(f'parameter {name}: {name[18:]!r} is not a joint of '
                                          f'{model.name!r}; ignored')
        for k, joint in enumerate(base.actuated):
            parameter = f'initial_positions.{joint}'
            if not self.has_parameter(parameter):
                declare(self, parameter, float(q0[k]),
                        f'initial position of {joint} (rad or m), clamped into its limits',
                        read_only=True)
            value = float(self.get_parameter(parameter).value)
            if not math.isfinite(value):
                raise ValueError(f'parameter {parameter} must be finite, got {value}')
            if not (lower[k] <= value <= upper[k]):
                self.get_logger().warning(
                    f'parameter {parameter} = {value} is outside the joint limits '
                    f'[{lower[k]}, {upper[k]}]; clamped')
            q0[k] = min(max(value, lower[k]), upper[k])
        return q0
