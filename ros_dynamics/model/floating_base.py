# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
Floating, planar and ball joints: random configurations, conversions, and checks of q.

Our coordinates are Pinocchio's (docs/conventions.md): free-flyer
q = (x, y, z, qx, qy, qz, qw), v = (linear, angular) twist in the base frame;
planar q = (x, y, cos theta, sin theta), v = (vx, vy, omega) in the moving
frame; ball q = (qx, qy, qz, qw), v = angular velocity in the child frame.
This module converts them to

* **MuJoCo's** (MuJoCo documentation, "Modeling: joint"; ``mj_integratePos``):
  a free joint qpos = (x, y, z, qw, qx, qy, qz) and qvel = (linear velocity
  of the body origin in world axes, angular velocity in body axes); a ball
  joint qpos = (qw, qx, qy, qz), qvel the angular velocity in the child
  frame; MuJoCo has no planar joint, whose usual MJCF form is a slide x, a
  slide y and a hinge z of the joint frame: qpos = (x, y, theta), qvel =
  (vx, vy, omega) in the joint (parent) frame's axes;
* the **mixed representation** of iDynTree and adam (Traversaro and
  Saccon, "Multibody dynamics notation", TU/e report 2019, sec. 6.3: the
  "mixed" velocity): the base's linear velocity of its origin and its
  angular velocity, both in world-aligned axes. With R the base rotation,
  v_mixed = (R v_lin, R omega) for a free-flyer root and
  (Rz(theta) (vx, vy), omega) for a planar one; the joints' velocities are
  unchanged.

Every function takes one state (nq,) / (nv,) or a batch (N, nq) / (N, nv)
and keeps our joint order (``RobotModel.joint_names``): a MuJoCo model of the
same robot orders its joints its own way, so its qpos is filled joint by
joint by name (``jnt_qposadr``, ``jnt_dofadr``). Mimic followers are not
coordinates here; MuJoCo keeps them as joints tied by equality constraints
(fill them from ``RobotModel.all_joint_positions``). Quaternions are
normalised on the way (a zero one is refused, ``check_rotations``).
"""

import math
from typing import Optional

import numpy as np

# scipy.spatial.transform.Rotation is imported by the functions using it (as in
# configuration.py): at the top it cost every `import ros_dynamics` about 60 ms.

# (nq, nv) of each URDF joint type in MuJoCo's representation (planar: slide, slide, hinge)
MUJOCO_SIZES = {'floating': (7, 6), 'spherical': (4, 3), 'planar': (3, 3)}
# half-width (m) of the box random_configuration draws a free-flyer's or planar base's
# position from, centred at the world origin
BASE_BOX = 1.0


def rotation_slices(robot) -> tuple:
    """
    Return ((joint, start, stop), ...): the entries of q of each quaternion and planar (cos, sin).

    joint: its name in ``robot.joint_names``; q[start:stop] holds (qx, qy, qz,
    qw) of a free-flyer or ball joint, (cos theta, sin theta) of a planar one.
    """
    slices = []
    for joint, kind in zip(robot.joint_names, robot.joint_types):
        start = robot.q_slice(joint).start
        if kind == 'floating':
            slices.append((joint, start + 3, start + 7))
        elif kind == 'spherical':
            slices.append((joint, start, start + 4))
        elif kind == 'planar':
            slices.append((joint, start + 2, start + 4))
    return tuple(slices)


def check_rotations(slices: tuple, q: np.ndarray, name: str = 'q') -> None:
    """
    Raise ValueError if a quaternion or planar (cos, sin) of q (..., nq) has near-zero length.

    Any other length is normalised where it is used (joints.quaternion_rotation);
    the threshold is joints.MIN_ROTATION_NORM2 on the squared length.
    """
    from ros_dynamics.multibody.joints import MIN_ROTATION_NORM2
    for joint, start, stop in slices:
        norm2 = np.sum(q[..., start:stop] ** 2, axis=-1)
        if np.any(norm2 < MIN_ROTATION_NORM2):
            what = 'quaternion' if stop - start == 4 else '(cos theta, sin theta)'
            row = '' if q.ndim == 1 else f' row {int(np.argmax(norm2 < MIN_ROTATION_NORM2))}:'
            raise ValueError(f'{name}:{row} the {what} of joint {joint!r} (entries {start}..'
                             f'{stop - 1}) has length {math.sqrt(float(np.min(norm2))):.3g}: '
                             'it names no rotation (other lengths are normalised)')


def check_actuation(actuators, joint_types: tuple) -> None:
    """
    Raise ValueError if a floating, planar or ball joint has armature or friction.

    Those joints are not actuated (a floating or planar base, a passive ball
    joint): their rows of the equations of motion get no rotor inertia and no
    joint friction. ``actuators``: an ActuatorParameters, per joint.
    """
    for k, (joint, kind) in enumerate(zip(actuators.joint_names, joint_types)):
        if kind not in MUJOCO_SIZES:
            continue
        for field in ('armature', 'viscous', 'coulomb', 'offset', 'sigmoid'):
            if np.any(getattr(actuators, field)[k] != 0.0):
                raise ValueError(
                    f'{field}: joint {joint!r} is a {kind} joint, which is not actuated (a '
                    f'floating or planar base, a passive ball joint): it takes no {field}; set '
                    f'it to 0 (got {getattr(actuators, field)[k]!r}; in an actuators YAML or '
                    'a URDF transmission, remove its entry)')


def converted(robot, function, q, v, kind: str = ''):
    """
    Validate (q, v or None), one state or a batch, and return ``function(robot, q, v)``.

    kind: '' (q (nq,), v (nv,)), 'mujoco' (qpos, qvel of MuJoCo's sizes,
    ``from_mujoco``) or 'mixed' (q, v_mixed: ``mixed_velocity`` inverted).
    The result keeps the leading shape of q.
    """
    names = {'mujoco': ('qpos', 'qvel'), 'mixed': ('q', 'v_mixed')}.get(kind, ('q', 'v'))
    sizes = mujoco_sizes(robot) if kind == 'mujoco' else (robot.nq, robot.nv)
    arrays = []
    for value, name, size in zip((q, v), names, sizes):
        array = None if value is None else np.asarray(value, dtype=float)
        if array is not None and (array.ndim not in (1, 2) or array.shape[-1] != size
                                  or not np.all(np.isfinite(array))):
            raise ValueError(f'{name}: expected finite numbers of shape ({size},) or '
                             f'(N, {size}), got shape {array.shape}')
        arrays.append(array)
    if arrays[1] is not None and arrays[1].shape[:-1] != arrays[0].shape[:-1]:
        raise ValueError(f'{", ".join(names)}: shapes differ ({arrays[0].shape}, '
                         f'{arrays[1].shape})')
    if names[0] == 'q':
        check_rotations(rotation_slices(robot), arrays[0])
    batch = [None if a is None else np.atleast_2d(a) for a in arrays]
    out = function(robot, *batch, inverse=True) if kind == 'mixed' else function(robot, *batch)
    if arrays[0].ndim == 2:
        return out
    return tuple(None if o is None else o[0] for o in out) if isinstance(out, tuple) else out[0]


def _rng(rng) -> np.random.Generator:
    return rng if isinstance(rng, np.random.Generator) else np.random.default_rng(rng)


def random_configuration(robot, rng=None, count: Optional[int] = None) -> np.ndarray:
    """
    Return random configurations within the joint limits: (nq,), or (count, nq).

    One-dof joints uniform between their URDF limits (continuous joints and
    joints without limits: revolute in [-pi, pi), prismatic in [-BASE_BOX,
    BASE_BOX] m); a free-flyer's position uniform in the box [-BASE_BOX,
    BASE_BOX]^3 m (BASE_BOX = 1 m) and its rotation uniform on SO(3)
    (``scipy.spatial.transform.Rotation.random``: a normalised Gaussian
    quaternion, uniform in the Haar measure); a
    planar joint's (x, y) in the box's square and theta uniform in
    [-pi, pi); a ball joint's rotation uniform on SO(3). rng: None, a seed or
    a numpy Generator.
    """
    from scipy.spatial.transform import Rotation
    if count is not None and (not isinstance(count, (int, np.integer)) or count < 0):
        raise ValueError(f'count: expected None or a non-negative integer, got {count!r}')
    rng = _rng(rng)
    rows = 1 if count is None else int(count)
    q = np.empty((rows, robot.nq))
    lower, upper = np.array(robot.lower), np.array(robot.upper)
    for joint, kind in zip(robot.joint_names, robot.joint_types):
        part = robot.q_slice(joint)
        k = part.start
        if kind == 'floating':
            q[:, k:k + 3] = rng.uniform(-BASE_BOX, BASE_BOX, (rows, 3))
            q[:, k + 3:k + 7] = Rotation.random(rows, rng=rng).as_quat()
        elif kind == 'spherical':
            q[:, k:k + 4] = Rotation.random(rows, rng=rng).as_quat()
        elif kind == 'planar':
            theta = rng.uniform(-math.pi, math.pi, rows)
            q[:, k:k + 2] = rng.uniform(-BASE_BOX, BASE_BOX, (rows, 2))
            q[:, k + 2], q[:, k + 3] = np.cos(theta), np.sin(theta)
        else:
            low, high = lower[k], upper[k]
            if not (math.isfinite(low) and math.isfinite(high)):
                span = BASE_BOX if kind == 'prismatic' else math.pi
                low, high = -span, span
            q[:, k] = rng.uniform(low, high, rows)
    return q[0] if count is None else q


def _quaternions(q: np.ndarray, name: str = 'q') -> np.ndarray:
    """Return the unit quaternions of q (N, 4); ValueError naming ``name`` for a zero one."""
    from ros_dynamics.multibody.joints import MIN_ROTATION_NORM2
    norm = np.linalg.norm(q, axis=-1, keepdims=True)
    if np.any(norm ** 2 < MIN_ROTATION_NORM2):
        raise ValueError(f'{name}: a quaternion of length {float(np.min(norm)):.3g} names no '
                         'rotation (other lengths are normalised)')
    return q / norm


def to_mujoco(robot, q: np.ndarray, v: Optional[np.ndarray] = None) -> tuple:
    """
    Return (qpos, qvel) in MuJoCo's conventions, our joint order; qvel None if v is.

    q (N, nq), v (N, nv) validated (RobotModel.to_mujoco): see the module
    docstring for each joint type. A free joint's qvel = (R v_lin, omega),
    R the base rotation; a planar joint's (Rz(theta) (vx, vy), omega).
    """
    from scipy.spatial.transform import Rotation
    types = robot.joint_types
    sizes = [MUJOCO_SIZES.get(kind, (1, 1)) for kind in types]
    qpos = np.empty((q.shape[0], sum(s[0] for s in sizes)))
    qvel = None if v is None else np.empty((q.shape[0], sum(s[1] for s in sizes)))
    a = b = 0
    for joint, kind, (nq, nv) in zip(robot.joint_names, types, sizes):
        k, j = robot.q_slice(joint).start, robot.v_slice(joint).start
        if kind == 'floating':
            quat = _quaternions(q[:, k + 3:k + 7])
            qpos[:, a:a + 3] = q[:, k:k + 3]
            qpos[:, a + 3] = quat[:, 3]
            qpos[:, a + 4:a + 7] = quat[:, :3]
            if v is not None:
                qvel[:, b:b + 3] = Rotation.from_quat(quat).apply(v[:, j:j + 3])
                qvel[:, b + 3:b + 6] = v[:, j + 3:j + 6]
        elif kind == 'spherical':
            quat = _quaternions(q[:, k:k + 4])
            qpos[:, a], qpos[:, a + 1:a + 4] = quat[:, 3], quat[:, :3]
            if v is not None:
                qvel[:, b:b + 3] = v[:, j:j + 3]
        elif kind == 'planar':
            c, s = q[:, k + 2], q[:, k + 3]
            qpos[:, a:a + 2], qpos[:, a + 2] = q[:, k:k + 2], np.arctan2(s, c)
            if v is not None:
                norm = np.hypot(c, s)
                c, s = c / norm, s / norm
                qvel[:, b] = c * v[:, j] - s * v[:, j + 1]
                qvel[:, b + 1] = s * v[:, j] + c * v[:, j + 1]
                qvel[:, b + 2] = v[:, j + 2]
        else:
            qpos[:, a] = q[:, k]
            if v is not None:
                qvel[:, b] = v[:, j]
        a, b = a + nq, b + nv
    return qpos, qvel


def mujoco_sizes(robot) -> tuple:
    """Return (nq, nv) of MuJoCo's representation of this robot's joints."""
    sizes = [MUJOCO_SIZES.get(kind, (1, 1)) for kind in robot.joint_types]
    return sum(s[0] for s in sizes), sum(s[1] for s in sizes)


def from_mujoco(robot, qpos: np.ndarray, qvel: Optional[np.ndarray] = None) -> tuple:
    """
    Return our (q, v) from MuJoCo's (qpos, qvel) (N, ...), our joint order; v None if qvel is.

    The inverse of ``to_mujoco``; quaternions are normalised.
    """
    from scipy.spatial.transform import Rotation
    q = np.empty((qpos.shape[0], robot.nq))
    v = None if qvel is None else np.empty((qpos.shape[0], robot.nv))
    a = b = 0
    for joint, kind in zip(robot.joint_names, robot.joint_types):
        nq, nv = MUJOCO_SIZES.get(kind, (1, 1))
        k, j = robot.q_slice(joint).start, robot.v_slice(joint).start
        if kind == 'floating':
            quat = _quaternions(np.concatenate([qpos[:, a + 4:a + 7], qpos[:, a + 3:a + 4]],
                                               axis=1), 'qpos')
            q[:, k:k + 3], q[:, k + 3:k + 7] = qpos[:, a:a + 3], quat
            if v is not None:
                v[:, j:j + 3] = Rotation.from_quat(quat).inv().apply(qvel[:, b:b + 3])
                v[:, j + 3:j + 6] = qvel[:, b + 3:b + 6]
        elif kind == 'spherical':
            q[:, k:k + 4] = _quaternions(np.concatenate([qpos[:, a + 1:a + 4],
                                                         qpos[:, a:a + 1]], axis=1), 'qpos')
            if v is not None:
                v[:, j:j + 3] = qvel[:, b:b + 3]
        elif kind == 'planar':
            c, s = np.cos(qpos[:, a + 2]), np.sin(qpos[:, a + 2])
            q[:, k:k + 2], q[:, k + 2], q[:, k + 3] = qpos[:, a:a + 2], c, s
            if v is not None:
                v[:, j] = c * qvel[:, b] + s * qvel[:, b + 1]
                v[:, j + 1] = -s * qvel[:, b] + c * qvel[:, b + 1]
                v[:, j + 2] = qvel[:, b + 2]
        else:
            q[:, k] = qpos[:, a]
            if v is not None:
                v[:, j] = qvel[:, b]
        a, b = a + nq, b + nv
    return q, v


def mixed_velocity(robot, q: np.ndarray, v: np.ndarray, inverse: bool = False) -> np.ndarray:
    """
    Return the mixed-representation velocity (N, nv) of v (N, nv) at q (N, nq), or its inverse.

    Only the root joint's block changes, and only for a free-flyer or planar
    root: (R v_lin, R omega) (Rz(theta) (vx, vy), omega); inverse=True maps a
    mixed velocity back to ours (R^T). Other robots: v unchanged.
    """
    from scipy.spatial.transform import Rotation
    out = np.array(v, dtype=float)
    joint, kind = robot.joint_names[0], robot.joint_types[0]
    if kind not in ('floating', 'planar') or robot.q_slice(joint).start != 0:
        return out
    if kind == 'floating':
        rotation = Rotation.from_quat(_quaternions(q[:, 3:7]))
        if inverse:
            rotation = rotation.inv()
        out[:, 0:3], out[:, 3:6] = rotation.apply(v[:, 0:3]), rotation.apply(v[:, 3:6])
        return out
    norm = np.hypot(q[:, 2], q[:, 3])
    c, s = q[:, 2] / norm, (-1.0 if inverse else 1.0) * q[:, 3] / norm
    out[:, 0], out[:, 1] = c * v[:, 0] - s * v[:, 1], s * v[:, 0] + c * v[:, 1]
    return out
