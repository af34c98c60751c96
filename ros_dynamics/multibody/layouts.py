# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
The flat arrays the kernels exchange, each declared once: its fields in order.

A kernel reads a body's transform, a closure's frame or the simulator's time
step as columns of a float array (``model[i, TREE_P:TREE_P + 3]``): numba
compiles arrays of float64 well and records (structs) of mixed fields poorly.
Each array below is a ``Layout``, a list of ``Field(name, width, meaning)``
lines (the meaning states the unit or frame), from which this module
generates, once at import:

- the offsets, as module-level ints (``TREE_P``, ``W_ACC_V``, ``C_DT``), so a
  kernel that reads ``model[i, MASS]`` gets the column as a compile-time
  constant (numba freezes a global int: the compiled code is the one a
  literal gives);
- the width of each array (``NCOL``, ``NKINEMATICS``, ``NCONTROL``);
- Python views: ``LAYOUT.view(array, 'MASS')`` and ``LAYOUT.fields(array)``
  (named views of an array's last axis) for the Python code that fills or
  reads these arrays.

A generated name is unique in the package (test/test_layouts.py). Fields are
consecutive; an ``overlay`` is a second list of fields that starts at one of
the first list's fields and reuses those columns (ABA's general step for a
joint of several velocity coordinates). A layout may contain another one
(``Field(prefix, LAYOUT, meaning)``): the packed model is the reals, the
ints, the actuator terms, the joint-aligned copy and the motion subspace.

Spatial vectors are Plücker coordinates (angular; linear), motion (w, v) and
force (n, f) alike (Featherstone 2008, sec. 2.2); rotations are stored row
major.
"""

from typing import Dict, NamedTuple, Sequence, Tuple, Union

import numpy as np

MAX_JOINT_NV = 6   # velocity coordinates of a joint at most (a free-flyer's 6)


class Field(NamedTuple):
    """One field of a layout: its name, its width (or a nested Layout) and its meaning."""

    name: str
    width: Union[int, 'Layout']
    meaning: str


class Layout:
    """
    The fields of one flat array's last axis, their offsets and the array's width.

    ``prefix`` is put before each field's name to make the generated offset's
    name (``export=False``: none generated, only ``width_name``); ``overlay``
    = (field name, fields): fields laid from that field's offset on, over
    the fields that follow it. Nested layouts contribute their own fields
    (offsets shifted, names under the prefix the nesting Field gives).
    """

    def __init__(self, title: str, prefix: str, fields: Sequence[Field], width_name: str,
                 overlay: Tuple[str, Sequence[Field]] = ('', ()), export: bool = True):
        self.title, self.prefix, self.width_name, self.export = title, prefix, width_name, export
        self.fields_declared = tuple(fields)
        self.overlay = (overlay[0], tuple(overlay[1]))
        self.offsets: Dict[str, Tuple[int, int]] = {}   # field name -> (offset, width)
        end = self._lay(self.fields_declared, 0)
        if self.overlay[0]:
            end = max(end, self._lay(self.overlay[1], self.offsets[self.overlay[0]][0]))
        self.width = end

    def _lay(self, fields: Sequence[Field], offset: int) -> int:
        """Give ``fields`` consecutive offsets from ``offset``; return the end."""
        for field in fields:
            if isinstance(field.width, Layout):
                for name, (start, width) in field.width.offsets.items():
                    self._add(field.name + name, offset + start, width)
                offset += field.width.width
            else:
                if field.width < 1:
                    raise ValueError(f'{self.title}: field {field.name} has width {field.width}')
                self._add(field.name, offset, field.width)
                offset += field.width
        return offset

    def _add(self, name: str, offset: int, width: int) -> None:
        if name in self.offsets:
            raise ValueError(f'{self.title}: field {name} declared twice')
        self.offsets[name] = (offset, width)

    def constants(self) -> Dict[str, int]:
        """Return the generated names: prefix + field -> offset, and width_name -> width."""
        names = {self.prefix + name: offset for name, (offset, _) in self.offsets.items()}
        if not self.export:
            names = {}
        names[self.width_name] = self.width
        return names

    def columns(self, name: str) -> slice:
        """Return the columns of field ``name`` (without the prefix) as a slice."""
        offset, width = self.offsets[name]
        return slice(offset, offset + width)

    def view(self, array: np.ndarray, name: str) -> np.ndarray:
        """Return the view of field ``name`` on the last axis of ``array`` (width kept)."""
        return array[..., self.columns(name)]

    def fields(self, array: np.ndarray) -> Dict[str, np.ndarray]:
        """Return {field name: view} of ``array``'s last axis, whose length must be the width."""
        if array.shape[-1] != self.width:
            raise ValueError(f'{self.title}: expected a last axis of {self.width} '
                             f'({self.width_name}), got {array.shape[-1]}')
        return {name: self.view(array, name) for name in self.offsets}

    def describe(self) -> str:
        """Return the table of fields (offset, width, name, meaning), one line each."""
        lines = [f'{self.title}: {self.width} ({self.width_name})']
        meanings = {}
        for field in self.fields_declared + self.overlay[1]:
            meanings[field.name] = field.meaning
        for name, (offset, width) in self.offsets.items():
            lines.append(f'  {offset:4d} {width:3d}  {self.prefix}{name}  '
                         f'{meanings.get(name, "")}')
        return '\n'.join(lines)


# --- the model (joints.py builds and reads it; model_build.py fills ints and reals) ---
INTS_LAYOUT = Layout('model ints, one row per moving body', '', [
    Field('PARENT', 1, 'parent body (-1: the fixed root)'),
    Field('JTYPE', 1, 'joint type code (joints.REVOLUTE, ...)'),
    Field('QINDEX', 1, "the joint's first position coordinate (its leader's for a mimic joint)"),
    Field('VINDEX', 1, "the joint's first velocity coordinate (its leader's for a mimic joint)"),
    Field('JOINT_NQ', 1, 'its position coordinates (0 for a mimic follower: it owns none)'),
    Field('JOINT_NV', 1, 'its velocity coordinates = columns of S (1 for a mimic follower)'),
], 'NINT')
REALS_LAYOUT = Layout('model reals, one row per moving body', '', [
    Field('TREE_R', 9, 'rotation of the joint frame at q = 0, parent-body coordinates'),
    Field('TREE_P', 3, 'origin of the joint frame, parent-body coordinates (m)'),
    Field('AXIS', 3, 'unit joint axis, body frame'),
    Field('MASS', 1, 'body mass (kg), fixed children merged'),
    Field('FIRST_MOMENT', 3, 'h = m c (kg m), c the centre of mass in body coordinates'),
    Field('IBAR', 6, 'rotational inertia about the body origin (xx, yy, zz, xy, xz, yz) (kg m^2)'),
    Field('MIMIC_GAIN', 1, 'G of q_i = G q_k + o'),
    Field('MIMIC_OFFSET', 1, 'o (rad or m)'),
], 'NREAL')
ACTUATOR_LAYOUT = Layout('actuator terms of the coordinate a body drives', 'ACT_', [
    Field('ARMATURE', 1, 'reflected rotor inertia G^2 J_m (kg m^2, or kg)'),
    Field('VISCOUS', 1, 'viscous friction b (N m s/rad)'),
    Field('COULOMB', 1, 'Coulomb friction f_c (N m)'),
    Field('OFFSET', 1, 'constant friction offset (N m)'),
    Field('SIGMOID', 3, "Gaz et al.'s sigmoid (phi1, phi2, phi3)"),
    Field('SIGMOID_REST', 1, 'its value at rest, phi1 / (1 + exp(-phi2 phi3)) (N m)'),
], 'NACTUATOR')
ALIGNED_LAYOUT = Layout('joint-aligned copy of a body row, read by ABA', '', [
    Field('TREE_R', 9, "A_p^T R_tree A_i (A_p: the parent's, 1 at the root)"),
    Field('TREE_P', 3, 'A_p^T p_tree (m)'),
    Field('FIRST_MOMENT', 3, 'A_i^T h (kg m)'),
    Field('IBAR', 6, 'A_i^T ibar A_i (xx, yy, zz, xy, xz, yz) (kg m^2)'),
    Field('R', 9, 'A_i, the aligned frame in body coordinates (row-major)'),
], 'NALIGNED', export=False)
MODEL_LAYOUT = Layout('packed model (joints.pack), one row per body, then the header row', '', [
    Field('', REALS_LAYOUT, 'the reals'),
    Field('COL_', INTS_LAYOUT, 'the ints, exact as floats'),
    Field('COL_', ACTUATOR_LAYOUT, 'the actuator terms'),
    Field('ALIGN_', ALIGNED_LAYOUT, 'the joint-aligned copy'),
    Field('SUBSPACE', 6 * MAX_JOINT_NV,
          'S_i: column a at SUBSPACE + 6 a, (angular, linear), body coordinates'),
], 'NCOL')
HEADER_LAYOUT = Layout("packed model's last row", 'H_', [
    Field('GRAVITY', 3, 'gravity, root frame (m/s^2)'),
    Field('NQ', 1, 'nq, the number of position coordinates'),
    Field('TOLERANCE', 1, 'a joint whose articulated inertia D_i is below this is singular'),
    Field('FRICTION_VELOCITY', 1, 'velocity scale v_s of the smooth sign tanh(qd / v_s) (rad/s)'),
    Field('NV', 1, 'nv, the number of velocity coordinates'),
    Field('ROTATIONS', 1, 'joints holding a quaternion or planar (cos, sin) (bad_positions)'),
    Field('SUBTREES', 1, '1.0 if each subtree owns one range of coordinates (crba.py)'),
], 'NMODEL_HEADER')

# --- spatial vectors and poses ---
SPATIAL_LAYOUT = Layout('spatial vector (Featherstone 2008, sec. 2.2)', 'SP_', [
    Field('ANGULAR', 3, 'angular part: w (rad/s) or moment n (N m)'),
    Field('LINEAR', 3, 'linear part: v (m/s) or force f (N)'),
], 'NSPATIAL')
POSE_LAYOUT = Layout('world pose of a body (kinematics.world_poses)', 'POSE_', [
    Field('R', 9, 'rotation, body axes in world coordinates (row-major)'),
    Field('P', 3, 'origin, world coordinates (m)'),
], 'NPOSE')
LINK_LAYOUT = Layout("a link's row for the single-state link entries (jacobian.py)", 'LINK_', [
    Field('FRAME', POSE_LAYOUT.width, "the link frame in its body's frame (R row-major, p (m))"),
    Field('BODY', 1, 'its body (float; -1 the fixed root)'),
], 'NLINK')

# --- kernel workspaces, one row per body ---
KINEMATICS_LAYOUT = Layout('forward_pass workspace (kinematics.py)', 'W_', [
    Field('ROT', 9, 'R_i, body frame in parent coordinates'),
    Field('POS', 3, 'r_i, body origin in parent coordinates (m)'),
    Field('VEL_W', 3, 'angular velocity, body coordinates (rad/s)'),
    Field('VEL_V', 3, 'linear velocity of the body origin, body coordinates (m/s)'),
    Field('ACC_W', 3, 'spatial acceleration, angular part (rad/s^2)'),
    Field('ACC_V', 3, 'spatial acceleration, linear part (m/s^2)'),
    Field('FORCE_N', 3, 'net spatial force, moment part (RNEA) (N m)'),
    Field('FORCE_F', 3, 'net spatial force, linear part (RNEA) (N)'),
], 'NKINEMATICS')
ABA_LAYOUT = Layout('ABA workspace (aba.py), joint-aligned body coordinates', 'ABA_', [
    Field('ROT', 9, "R_i, aligned body frame in its parent's"),
    Field('POS', 3, 'r_i (m)'),
    Field('VEL_W', 3, 'angular velocity, later the acceleration a_i'),
    Field('VEL_V', 3, 'linear velocity, later the acceleration a_i'),
    Field('BIAS_W', 3, 'velocity product c_i, angular'),
    Field('BIAS_V', 3, 'c_i, linear'),
    Field('IA_A', 9, 'articulated inertia, block A'),
    Field('IA_B', 9, 'block B'),
    Field('IA_C', 9, 'block C'),
    Field('PA_N', 3, 'articulated bias force, moment (N m)'),
    Field('PA_F', 3, 'articulated bias force, force (N)'),
    Field('U_W', 3, 'U_i = IA_i S_i, angular'),
    Field('U_V', 3, 'U_i, linear'),
    Field('D', 1, 'D_i = S_i^T U_i'),
    Field('SMALL_U', 1, 'u_i = tau_i - S_i^T pA_i'),
], 'NABA', overlay=('U_W', [
    Field('MULTI_U', 6 * MAX_JOINT_NV, 'a joint of m > 1 columns: U_a = IA_i S_a, a < m'),
    Field('MULTI_DINV', MAX_JOINT_NV * MAX_JOINT_NV, 'D_i^-1 (row-major, m wide)'),
    Field('MULTI_SMALL_U', MAX_JOINT_NV, 'u_i (m)'),
]))
CRBA_LAYOUT = Layout('CRBA workspace (crba.py): body or tree reference frame', 'CRBA_', [
    Field('ROT', 9, 'R_i as W_ROT (kinematics.transforms; the pose in the reference frame)'),
    Field('POS', 3, 'r_i as W_POS (m)'),
    Field('MASS', 1, 'composite mass (kg)'),
    Field('H', 3, 'composite first moment (kg m)'),
    Field('IBAR', 6, 'composite rotational inertia about the frame origin (kg m^2)'),
    Field('COUNT', 1, "velocity coordinates in the body's subtree (reference pass)"),
], 'NCRBA')
CORIOLIS_LAYOUT = Layout('Coriolis matrix: per-body world quantities (coriolis.py)', 'COR_', [
    Field('VEL', 6, 'v_i, world coordinates at the world origin'),
    Field('MASS', 1, 'mass (kg)'),
    Field('H', 3, 'first moment, world (kg m)'),
    Field('IBAR', 6, 'rotational inertia about the world origin (kg m^2)'),
], 'NCORIOLIS')
CORIOLIS_COLUMN_LAYOUT = Layout('Coriolis matrix: motion-subspace column a of a body', 'COR_S_', [
    Field('AXIS', 6, 'S_ia, world coordinates'),
    Field('RATE', 6, 'dS_ia/dt, world coordinates'),
], 'NCOR_COLUMN')
NCOR_SUBSPACE = CORIOLIS_COLUMN_LAYOUT.width * MAX_JOINT_NV   # column a at NCOR_COLUMN a

# --- rows the Python code writes for the kernels ---
WRENCH_LAYOUT = Layout('link wrench row (kinematics.body_forces_batch, the simulator)',
                       'WRENCH_', [
                           Field('BODY', 1, 'the body the link belongs to (float)'),
                           Field('OFFSET', 3, 'the link origin in body coordinates (m)'),
                           Field('FORCE', 3, 'force, world axes (N)'),
                           Field('TORQUE', 3, 'torque about the link origin, world axes (N m)'),
                       ], 'NWRENCH')
PARAMS_LAYOUT = Layout('simulator parameter rows, one column per velocity coordinate '
                       '(integrators.py)', '', [
                           Field('DAMPING', 1, 'viscous damping (N m s/rad)'),
                           Field('FRICTION', 1, 'Coulomb friction (N m)'),
                           Field('FRICTION_VELOCITY', 1, 'smoothing velocity of its sign (rad/s)'),
                           Field('LOWER', 1, 'lower position limit (rad or m)'),
                           Field('UPPER', 1, 'upper position limit (rad or m)'),
                           Field('STOP_STIFFNESS', 1, 'limit stop stiffness (N m/rad)'),
                           Field('STOP_DAMPING', 1, 'limit stop damping (N m s/rad)'),
                           Field('OFFSET', 1, 'constant friction offset (N m)'),
                           Field('SIGMOID', 3, 'phi1, phi2, phi3'),
                           Field('Q_INDEX', 1, "the coordinate's position coordinate (one-dof "
                                 'joints), -1 for the others'),
                       ], 'NPARAMS')
CONTROL_LAYOUT = Layout("simulator's control array (integrators.py)", 'C_', [
    Field('DT', 1, 'step (s)'),
    Field('RK4', 1, '1: RK4, 0: semi-implicit Euler'),
    Field('LIMITS', 1, '1: position-limit stops on'),
    Field('DENSE', 1, '1: M qdd = tau - b by Cholesky (mimic joints), 0: ABA'),
    Field('TOLERANCE', 1, 'relative energy growth tolerated with no input'),
    Field('TIME', 1, 'simulated time (s)'),
    Field('REFERENCE', 1, 'energy reference (J), NaN while an input is applied'),
    Field('KINETIC_SCALE', 1, 'largest kinetic energy since the reference was taken (J)'),
    Field('KINETIC', 1, 'kinetic energy of the last state checked (J)'),
    Field('ENERGY', 1, 'total energy of the last state checked (J)'),
    Field('COUNT', 1, 'steps to take (simulation_steps_entry)'),
    Field('WRENCHES', 1, "wrench rows that follow the parameters in the entry's block"),
], 'NCONTROL')
CLOSURE_HEADER_LAYOUT = Layout("closed chain's header (loop_closures.py)", 'K_', [
    Field('CLOSURES', 1, 'number of closures'),
    Field('ROWS', 1, 'm, the constraint rows of all closures'),
    Field('ALPHA', 1, "Baumgarte's alpha (1/s)"),
    Field('BETA', 1, "Baumgarte's beta (1/s)"),
    Field('RANK_TOLERANCE', 1, 'relative smallest singular value of Jc counted as singular'),
    Field('LOCK_TOLERANCE', 1, "the same for Jc's passive columns"),
    Field('LOCK_SIGN', 1, "sign of det(Jc's passive columns) at the start (square block)"),
], 'NCLOSURE_HEADER')
CLOSURE_LAYOUT = Layout('loop closure row (loop_closures.py)', 'CL_', [
    Field('BODY_A', 1, 'body of frame a (float; -1 the fixed root)'),
    Field('FRAME_A', 12, "frame a in its body's coordinates (R row-major, p (m))"),
    Field('BODY_B', 1, 'body of frame b'),
    Field('FRAME_B', 12, "frame b in its body's coordinates"),
    Field('ROWS', 6, '1.0 for each constrained row of [position; orientation]'),
], 'NCLOSURE')
GROUND_LAYOUT = Layout("ground contact's header (contacts/ground_kernel.py)", 'G_', [
    Field('COUNT', 1, 'k, contact points'),
    Field('HEIGHT', 1, "the plane's offset along its normal (m)"),
    Field('NORMAL', 3, 'unit normal, world axes'),
    Field('TANGENT1', 3, 't1, world axes (t1, t2, n right-handed)'),
    Field('TANGENT2', 3, 't2, world axes'),
    Field('FRICTION', 1, 'mu'),
    Field('ITERATIONS', 1, 'most Gauss-Seidel sweeps a step'),
    Field('TOLERANCE', 1, 'relative change of the impulses that ends the sweeps'),
    Field('ERP', 1, 'fraction of a penetration taken back a step'),
    Field('SWEEPS', 1, 'out: sweeps of the last step'),
    Field('TOUCHING', 1, 'out: points with a positive normal impulse in the last step'),
], 'NGROUND_HEADER')
POINT_LAYOUT = Layout("a ground contact point's row (contacts/ground_kernel.py)", 'P_', [
    Field('BODY', 1, 'its body (>= 0)'),
    Field('POINT', 3, "the point (a sphere's centre), body coordinates (m)"),
    Field('RADIUS', 1, "the sphere's radius (m), 0 for a point"),
], 'NPOINT')
CONTACT_LAYOUT = Layout("one contact in constrained dynamics' extra (contacts/kernel.py)",
                        'CT_', [
                            Field('SIZE', 1, 'constrained rows: 3 (point) or 6'),
                            Field('BODY', 1, 'its body (-1: the fixed root)'),
                            Field('POINT', 3, "the contact frame's origin, body coordinates (m)"),
                        ], 'NCONTACT')
LANE_STATE_LAYOUT = Layout("a lane group's states, first axis of (NLANE_STATES, n, LANES) "
                           '(rollouts/lanes.py)', 'L_', [
                               Field('Q', 1, 'q at the start of the step'),
                               Field('QD', 1, 'qd at the start of the step'),
                               Field('QS', 1, "a stage's q"),
                               Field('QDS', 1, "a stage's qd"),
                               Field('K1', 1, 'RK4 slope 1'),
                               Field('K2', 1, 'RK4 slope 2'),
                               Field('K3', 1, 'RK4 slope 3'),
                               Field('K4', 1, 'RK4 slope 4'),
                               Field('Q_NEXT', 1, 'q after the step'),
                               Field('QD_NEXT', 1, 'qd after the step'),
                               Field('TAU', 1, 'joint torques'),
                           ], 'NLANE_STATES')
LANE_ROW_LAYOUT = Layout("a lane group's rows, first axis of (NLANE_ROWS, LANES, n) "
                         '(rollouts/lanes.py)', 'R_', [
                             Field('Q', 1, 'q at the start of the step'),
                             Field('QD', 1, 'qd at the start of the step'),
                             Field('EFFORT', 1, 'the effort'),
                             Field('STAGE_Q', 1, "scratch: a stage's q"),
                             Field('STAGE_QD', 1, "scratch: a stage's qd"),
                             Field('TAU', 1, 'joint torques'),
                             Field('QDD', 1, 'accelerations'),
                         ], 'NLANE_ROWS')

# --- the 1 kHz stream's serialised JointState (kernels/stream.py joint_state_layout) ---
JOINT_STATE_LAYOUT = Layout('where the fields of a serialised JointState lie (int64; offsets in '
                            'bytes from the end of the 4-byte encapsulation header)', 'JS_', [
                                Field('SEC', 1, 'header.stamp.sec (s, int32)'),
                                Field('NANOSEC', 1, 'header.stamp.nanosec (ns, uint32)'),
                                Field('NAMES', 1, "offset of the name list's uint32 count"),
                                Field('NAMES_END', 1, 'offset after the last name'),
                                Field('NAME_COUNT', 1, 'number of names'),
                                Field('POSITION', 1, 'offset of the first position double'),
                                Field('POSITIONS', 1, 'number of positions'),
                                Field('VELOCITY', 1, 'offset of the first velocity double'),
                                Field('VELOCITIES', 1, 'number of velocities'),
                                Field('EFFORT', 1, 'offset of the first effort double'),
                                Field('EFFORTS', 1, 'number of efforts'),
                            ], 'NJOINT_STATE')

LAYOUTS = (INTS_LAYOUT, REALS_LAYOUT, ACTUATOR_LAYOUT, ALIGNED_LAYOUT, MODEL_LAYOUT,
           HEADER_LAYOUT, SPATIAL_LAYOUT, POSE_LAYOUT, LINK_LAYOUT, KINEMATICS_LAYOUT, ABA_LAYOUT,
           CRBA_LAYOUT, CORIOLIS_LAYOUT, CORIOLIS_COLUMN_LAYOUT,
           WRENCH_LAYOUT, PARAMS_LAYOUT, CONTROL_LAYOUT, CLOSURE_HEADER_LAYOUT, CLOSURE_LAYOUT,
           GROUND_LAYOUT, POINT_LAYOUT, CONTACT_LAYOUT, LANE_STATE_LAYOUT, LANE_ROW_LAYOUT,
           JOINT_STATE_LAYOUT)


def wrench_row(body: int, offset: np.ndarray, wrench: np.ndarray) -> np.ndarray:
    """
    Return one WRENCH_LAYOUT row (NWRENCH,): a link wrench as the kernels read it.

    body: the moving body carrying the link; offset (3,): the link origin in
    body coordinates (m); wrench (6,): [force (N); torque about the link
    origin (N m)], world axes.
    """
    row = np.empty(WRENCH_LAYOUT.width)
    fields = WRENCH_LAYOUT.fields(row)
    fields['BODY'][0] = body
    fields['OFFSET'][:] = offset
    fields['FORCE'][:] = wrench[:3]
    fields['TORQUE'][:] = wrench[3:]
    return row


def generated_names() -> Dict[str, int]:
    """Return every generated name -> value; raise ValueError if two layouts make one name."""
    names: Dict[str, int] = {}
    for layout in LAYOUTS:
        for name, value in layout.constants().items():
            if name in names and names[name] != value:
                raise ValueError(f'layouts: {name} is {names[name]} in one layout and {value} '
                                 f'in {layout.title}')
            names[name] = value
    return names


globals().update(generated_names())   # the offsets, as module-level ints (see the docstring)
