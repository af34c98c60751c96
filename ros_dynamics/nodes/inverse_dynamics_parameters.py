# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
The inverse-dynamics node's parameters: declared, checked, and changed at run time.

A mixin of ``InverseDynamicsNode`` (nodes/inverse_dynamics_node.py, whose module documents
them): the stream's parameters are checked by nodes/feedforward.py's ``check_values`` and,
once a model is loaded, by building the ``Feedforward`` they describe; a change that does not
check out is refused with the reason, and nothing of it is applied.
"""

from rcl_interfaces.msg import SetParametersResult
from ros_dynamics.nodes.feedforward import (check_values, Feedforward, FRICTION_COMPENSATION,
                                            MODES, UNLISTED)
from ros_dynamics.nodes.parameters import checked, declare, NON_NEGATIVE, ParameterError
from ros_dynamics.nodes.stale import DESCRIPTION as STALE_DESCRIPTION
from ros_dynamics.nodes.stale import DURATION_DESCRIPTION, ON_STALE


class InverseDynamicsParameters:
    """The parameters of InverseDynamicsNode (a mixin of an rclpy LifecycleNode)."""

    def _declare_parameters(self) -> None:
        self._mode = declare(
            self, 'mode', 'gravity_compensation',
            'feedforward torque of the commands stream: gravity_compensation (g(q)), '
            'inverse_dynamics (RNEA of the reference), computed_torque (M (qdd_ref + kd e_dot '
            '+ kp e) + C qd + g)', constraints='one of ' + ', '.join(MODES))
        self._joints = [j for j in declare(
            self, 'joints', [''],
            'output order of the commands (Float64MultiArray), as the joints parameter of a '
            'ros2_control forward_command_controller; a subset of the model joints is allowed '
            '(see unlisted_joints); [] or [""] = every model joint in model order',
            flexible=True) if j]
        self._kp = list(declare(self, 'kp', [0.0],
                                'computed_torque position gains per joint of joints, or one for '
                                'all (1/s^2)', value_range=NON_NEGATIVE, flexible=True))
        self._kd = list(declare(self, 'kd', [0.0],
                                'velocity gains per joint of joints, or one for all (1/s): '
                                'computed_torque feedback, and the damping -M(q) kd qd of '
                                'gravity_compensation', value_range=NON_NEGATIVE,
                                flexible=True))
        self._unlisted = declare(
            self, 'unlisted_joints', 'hold',
            'model joints not in joints: hold (latest received position, 0 clamped into the '
            'limits until one arrives; never stale), require (must be fresh in joint_states), '
            'ignore (always 0 clamped into the limits)', constraints='one of '
            + ', '.join(UNLISTED))
        self._include_gravity = declare(
            self, 'include_gravity', True,
            'include g(q) in the commands; false for controllers that compensate gravity '
            'themselves (Franka, KUKA): sending g(q) would double it')
        self._on_stale = declare(
            self, 'on_stale', 'zero', STALE_DESCRIPTION + ' (ramp and hold run the stream '
            'in Python, not the compiled path)', constraints='one of ' + ', '.join(ON_STALE))
        self._stale_duration = declare(self, 'stale_duration', 0.5, DURATION_DESCRIPTION,
                                       value_range=NON_NEGATIVE)
        self._clamp = declare(self, 'clamp_effort', True,
                              'clamp the commands to the URDF effort limits')
        self._timeout = declare(
            self, 'state_timeout', 0.1,
            'a joint state is stale when a required joint was not updated for this long or '
            'the message is stamped older than this by the node clock (s, > 0)',
            value_range=NON_NEGATIVE, constraints='> 0')
        self._publish_joint_state = declare(
            self, 'publish_joint_state', False,
            'also publish each command as sensor_msgs/JointState on effort_commands')
        self._friction = str(declare(
            self, 'friction_compensation', 'false',
            "add the model's joint friction to the feedforward and the services: false, "
            'reference (friction of the reference velocity) or measured (of the measured '
            'velocity)', constraints='one of ' + ', '.join(FRICTION_COMPENSATION),
            flexible=True)).lower()   # flexible: YAML's bare false is the choice 'false'
        self._period = declare(self, 'diagnostics_period', 1.0, 'period of /diagnostics (s, > 0)',
                               read_only=True, value_range=NON_NEGATIVE, constraints='> 0')

    def _values(self, **changes) -> dict:
        values = {'mode': self._mode, 'state_timeout': self._timeout, 'joints': self._joints,
                  'kp': self._kp, 'kd': self._kd, 'unlisted_joints': self._unlisted,
                  'include_gravity': self._include_gravity, 'on_stale': self._on_stale,
                  'friction_compensation': self._friction,
                  'stale_duration': self._stale_duration}
        values.update(changes)
        return values

    def _on_parameters(self, parameters) -> SetParametersResult:
        try:   # values as declared: [] and one scalar for all, integers for doubles
            changes = {p.name: checked(self, p.name, p.value) for p in parameters
                       if p.name in self._values()}
        except ParameterError as error:
            return SetParametersResult(successful=False, reason=str(error))
        if 'joints' in changes:
            changes['joints'] = [j for j in changes['joints'] if j]
        values = self._values(**changes)
        problem = check_values(values)
        joints, kp, kd = values['joints'], list(values['kp']), list(values['kd'])
        model = self._models.model if hasattr(self, '_models') else None
        if not problem and model is not None:
            try:
                Feedforward(self._odometry.actuated(model), joints, kp, kd,
                            values['unlisted_joints'])
            except ValueError as error:
                problem = str(error)
        if problem:
            return SetParametersResult(successful=False, reason=problem)
        self._mode, self._timeout = values['mode'], float(values['state_timeout'])
        self._joints, self._kp, self._kd = joints, kp, kd
        self._unlisted, self._on_stale = values['unlisted_joints'], values['on_stale']
        self._stale_duration = float(changes.get('stale_duration', self._stale_duration))
        policy = getattr(self, '_stale_policy', None)
        if policy is not None:
            policy.policy, policy.duration = self._on_stale, self._stale_duration
        self._include_gravity = bool(values['include_gravity'])
        self._friction = str(values['friction_compensation']).lower()
        values = {p.name: p.value for p in parameters}
        self._clamp = bool(values.get('clamp_effort', self._clamp))
        self._publish_joint_state = bool(values.get('publish_joint_state',
                                                    self._publish_joint_state))
        self._update_interfaces()
        if model is not None:
            self._configure(model, joints, kp, kd)
        return SetParametersResult(successful=True)
