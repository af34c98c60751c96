# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
The joint torque regressor of a robot model, single and batched (``RobotModel.regressor``).

The kernels and the column layout are in ``ros_dynamics.kernels.regressor``;
this module validates the states, binds the single-state call and runs
batches over threads.
"""

import numpy as np

from ros_dynamics.kernels.regressor import (armature_columns, friction_columns,
                                            PARAMETERS_PER_BODY, regressor_batch,
                                            regressor_entry)
from ros_dynamics.model.floating_base import check_rotations, rotation_slices
from ros_dynamics.runtime.batches import check_status, run_batch
from ros_dynamics.runtime.jit import ensure_compiled


def joint_torque_regressor(robot, q, qd, qdd, friction: bool = False, armature: bool = False,
                           friction_velocity: float = 1e-3) -> np.ndarray:
    """
    Return Y with tau = Y theta: (dof, p) for one state, (N, dof, p) for a batch.

    q, qd, qdd: (dof,) or (N, dof) in rad, rad/s, rad/s^2 (m, m/s, m/s^2 for
    prismatic joints). theta is ``robot.inertial_parameters().ravel()`` (10 per
    body, ``robot.body_names`` order), followed with ``friction`` by 3 per
    joint ([viscous, Coulomb, offset] of joint 0, then joint 1, ...; see
    ``friction_columns``, the Coulomb column is tanh(qd / friction_velocity)
    as in ``Simulator``) and with ``armature`` by 1 per joint (qdd_j: the
    reflected rotor inertia, kg m^2). p = 10 nb [+ 3 dof] [+ dof]. Without
    friction and armature, Y theta = ``robot.inverse_dynamics(q, qd, qdd)``.
    """
    if not friction_velocity > 0.0:
        raise ValueError(f'friction_velocity: must be > 0 (rad/s), got {friction_velocity!r}')
    calls = robot.state_calls   # bound to the packed model of this call (calls.model)
    if not (friction or armature):   # one state of float64 vectors: the compiled entry
        call = calls.find(regressor_entry)
        y = None if call is None else call(q, qd, qdd)
        if y is not None:
            return y
    names = ('q', 'qd', 'qdd')
    q, qd, qdd = robot.validated_states(names, q, qd, qdd)
    nb = calls.model.shape[0] - 1
    single = q.ndim == 1
    if single and robot.nq != robot.nv:   # a zero quaternion or (cos, sin): the error naming it
        check_rotations(rotation_slices(robot), q)
    if single and nb:
        call = calls.bind(regressor_entry, 3, (robot.dof, PARAMETERS_PER_BODY * nb))
        y = np.empty((robot.dof, PARAMETERS_PER_BODY * nb))
        check_status(call.into(y, q, qd, qdd), names, (q, qd, qdd))
        if not (friction or armature):
            return y
    bq, bqd, bqdd = (a.reshape(1, a.shape[-1]) if single else a for a in (q, qd, qdd))
    out = np.empty((bq.shape[0], robot.dof, PARAMETERS_PER_BODY * nb))
    if single and nb:
        out[0] = y
    elif nb:
        ensure_compiled(regressor_batch)
        model = calls.model
        run_batch(regressor_batch, bq.shape[0],
                  lambda a, b: (model, bq[a:b], bqd[a:b], bqdd[a:b], out[a:b]))
    blocks = [out]
    if friction:
        blocks.append(friction_columns(bqd, friction_velocity))
    if armature:
        blocks.append(armature_columns(bqdd))
    if len(blocks) > 1:
        out = np.concatenate(blocks, axis=-1)
    return out[0] if single else out
