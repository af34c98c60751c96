# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
Closed kinematic chains: a tree plus loop-closure constraints (Ghosal's NPTEL notes, module 6).

URDF describes trees, so a closed chain is a tree cut at one joint per loop
plus closures, each requiring two frames to coincide (declared in YAML, see
``ClosedChain.from_yaml``). With the stacked closure residual phi(q), its
Jacobian Jc = d phi / dq and bias Jcdot qd, the equations of motion are the
differential-algebraic system (Lagrange multipliers, as in Ghosal's notes)

    M qdd + b = tau + Jc^T lambda,    Jc qdd = -Jcdot qd - 2 alpha phidot - beta^2 phi,

the second line being the constraint's second derivative with Baumgarte's
stabilisation (alpha, beta: the damping and frequency of the drift, in the
(Baumgarte 1983) form of Ghosal's notes). ``forward_dynamics`` solves the dense KKT system
[M -Jc^T; Jc 0] [qdd; lambda] = [tau - b; rhs], O((n + m)^3) per call (tiny
for mechanisms: n + m = 5 for the four-bar, 27 for the Delta robot). phi,
Jc, Jcdot qd and the KKT system are the compiled kernels of the simulator's
closed-chain step (loop_closures.py): one implementation of the law. lambda
is the force (N) on frame_a's origin in the root frame's axes (frame_b gets
-lambda) and, for the orientation rows of a pose closure, the torque (N m).

A configuration where Jc loses rank (links aligned: the mechanism locks) has
no unique lambda: ``ConstraintSingularity`` is raised there, naming the
closure, instead of returning forces that grow without bound.

YAML schema (``ClosedChain.from_yaml``; unknown keys, links or joints are a ValueError)::

    closures:                      # one entry per cut joint (loop)
      - name: O3                   # optional, used in messages
        frame_a: {link: link2_tip, offset: [0, 0, 0]}   # offset xyz in the link, optional
        frame_b: {link: link3_tip}                      # (and rpy, for pose closures)
        type: planar_point         # point (3 rows), pose (6), planar_point (2), axis (1)
        normal: z                  # planar_point: the plane's normal (root-frame axis)
        # axis: x                  # axis: the one root-frame direction constrained
    actuated: [j1_theta1]          # the driven joints; the others (cut joints) are passive
"""

from dataclasses import dataclass, field
from typing import Callable, Mapping, Optional, Sequence, Union

import numpy as np
from ros_dynamics.kernels import kinematics, loop_closures
from ros_dynamics.model.robot import RobotModel
from ros_dynamics.multibody import layouts
from ros_dynamics.runtime.batches import as_array
from ros_dynamics.runtime.jit import ensure_compiled
from scipy.spatial.transform import Rotation
import yaml

AXES = {'x': 0, 'y': 1, 'z': 2}


class ConstraintSingularity(ValueError):
    """The closure Jacobian lost rank: the mechanism is at a singular (locked) configuration."""


@dataclass(frozen=True)
class Closure:
    """
    Two frames (link + offset) that must coincide along ``rows``.

    rows index [position; orientation] in root axes: 0-2 the origins'
    difference, 3-5 the relative rotation (pose closures). rotation_a/b
    orient the frames in their links (used by orientation rows only).
    """

    name: str
    link_a: str
    offset_a: np.ndarray
    link_b: str
    offset_b: np.ndarray
    rows: tuple
    rotation_a: np.ndarray = field(default_factory=lambda: np.eye(3))
    rotation_b: np.ndarray = field(default_factory=lambda: np.eye(3))


class ClosedChain:
    """A RobotModel (the cut tree) with loop closures and a set of actuated joints."""

    def __init__(self, robot: RobotModel, closures: Sequence[Closure],
                 actuated: Sequence[str], rank_tolerance: float = 1e-6,
                 lock_tolerance: float = 1e-3) -> None:
        """
        Check the closures' links and the actuated joints against the model.

        rank_tolerance, lock_tolerance: relative smallest singular value of Jc
        and of its passive columns below which a configuration is singular.
        The folded start of Ghosal's four-bar has 3e-3 and 5e-3.
        """
        self.robot = robot
        self.closures = tuple(closures)
        if not self.closures:
            raise ValueError('closures: at least one loop closure is needed')
        for closure in self.closures:
            for link in (closure.link_a, closure.link_b):
                if link not in robot.link_names:
                    raise ValueError(f'closure {closure.name!r}: link {link!r} is not a link '
                                     f'of {robot.name!r} (links: {", ".join(robot.link_names)})')
        self.actuated = [robot.v_slice(name).start for name in actuated]   # coordinates
        for name in actuated:
            kind = robot.joint_types[robot.joint_index(name)]
            if robot.v_slice(name).stop - robot.v_slice(name).start != 1:
                raise ValueError(f'actuated: joint {name!r} is a {kind} joint, not an actuated '
                                 'one-dof joint')
        self.rank_tolerance = rank_tolerance
        self.lock_tolerance = lock_tolerance
        self.m = sum(len(c.rows) for c in self.closures)
        # the compiled law's data, copied by each call (threads may share a chain)
        self._data = self.compiled_data()
        self._scratch_size = loop_closures.scratch_size.py_func(robot.nv, len(robot.body_names))

    def compiled_data(self, alpha: float = 0.0, beta: float = 0.0,
                      lock_sign: float = 1.0) -> np.ndarray:
        """
        Return the chain's data for the compiled kernels (loop_closures.chain_parts).

        Header (Baumgarte's alpha and beta in 1/s, the tolerances, the lock
        sign), passive-joint mask (n) and one row per closure: each frame as its
        body and its pose in the body (the link's offset composed with the
        closure's offset and rotation), then zeroed scratch (chain_size).
        """
        robot, n = self.robot, self.robot.nv
        header = np.zeros(layouts.NCLOSURE_HEADER)
        header[layouts.K_CLOSURES] = len(self.closures)
        header[layouts.K_ROWS] = self.m
        header[layouts.K_ALPHA], header[layouts.K_BETA] = alpha, beta
        header[layouts.K_RANK_TOLERANCE] = self.rank_tolerance
        header[layouts.K_LOCK_TOLERANCE] = self.lock_tolerance
        header[layouts.K_LOCK_SIGN] = lock_sign
        passive = np.ones(n)
        passive[self.actuated] = 0.0
        rows = np.zeros((len(self.closures), layouts.NCLOSURE))
        for row, closure in zip(rows, self.closures):
            fields = layouts.CLOSURE_LAYOUT.fields(row)
            for side, link, offset, rotation in (
                    ('A', closure.link_a, closure.offset_a, closure.rotation_a),
                    ('B', closure.link_b, closure.offset_b, closure.rotation_b)):
                fields['BODY_' + side][0], frame = robot.link_attachment(link)
                pose, rot = layouts.POSE_LAYOUT.fields(fields['FRAME_' + side]), frame[:3, :3]
                pose['R'][:] = (rot @ rotation).ravel()
                pose['P'][:] = frame[:3, 3] + rot @ offset
            fields['ROWS'][np.array(closure.rows)] = 1.0
        data = np.zeros(loop_closures.chain_size.py_func(n, len(self.closures), self.m))
        parts = np.concatenate([header, passive, rows.ravel()])
        data[:parts.size] = parts
        return data

    @classmethod
    def from_yaml(cls, robot: RobotModel, path: str) -> 'ClosedChain':
        """Load closures and actuated joints from a YAML file (see config/four_bar_loops.yaml)."""
        with open(path, encoding='utf-8') as stream:
            data = yaml.safe_load(stream)
        if not isinstance(data, dict) or 'closures' not in data:
            raise ValueError(f'{path}: expected a mapping with "closures" and "actuated"')
        unknown = set(data) - {'closures', 'actuated'}
        if unknown:
            raise ValueError(f'{path}: unknown keys {sorted(unknown)} (closures, actuated)')
        if not isinstance(data['closures'], list):
            raise ValueError(f'{path}: closures must be a list of closures')
        closures = []
        for k, entry in enumerate(data['closures']):
            if not isinstance(entry, dict):
                raise ValueError(f'{path}: closure {k} must be a mapping, got {entry!r}')
            name = entry.get('name', f'closure {k}')
            unknown = set(entry) - {'name', 'type', 'normal', 'axis', 'frame_a', 'frame_b'}
            if unknown:
                raise ValueError(f'closure {name!r}: unknown keys {sorted(unknown)} '
                                 '(name, type, normal, axis, frame_a, frame_b)')
            kind = entry.get('type', 'point')
            if kind == 'point':
                rows = (0, 1, 2)
            elif kind == 'pose':
                rows = (0, 1, 2, 3, 4, 5)
            elif kind == 'planar_point':
                normal = entry.get('normal', 'z')
                if normal not in AXES:
                    raise ValueError(f'closure {name!r}: normal must be x, y or z, got {normal!r}')
                rows = tuple(a for a in range(3) if a != AXES[normal])
            elif kind == 'axis':
                axis = entry.get('axis', 'x')
                if axis not in AXES:
                    raise ValueError(f'closure {name!r}: axis must be x, y or z, got {axis!r}')
                rows = (AXES[axis],)
            else:
                raise ValueError(f'closure {name!r}: type must be point, pose, planar_point or '
                                 f'axis, got {kind!r}')
            frames = {}
            for key in ('frame_a', 'frame_b'):
                frame = entry.get(key)
                if not isinstance(frame, dict) or 'link' not in frame:
                    raise ValueError(f'closure {name!r}: {key} needs a link')
                if set(frame) - {'link', 'offset', 'rpy'}:
                    raise ValueError(f'closure {name!r}: {key} has unknown keys '
                                     f'{sorted(set(frame) - {"link", "offset", "rpy"})} '
                                     '(link, offset, rpy)')
                values = []
                for part in ('offset', 'rpy'):
                    value = np.asarray(frame.get(part, [0.0, 0.0, 0.0]), dtype=float)
                    if value.shape != (3,) or not np.all(np.isfinite(value)):
                        raise ValueError(f'closure {name!r}: {key} {part} must be 3 numbers')
                    values.append(value)
                rotation = Rotation.from_euler('xyz', values[1]).as_matrix()   # URDF's rpy
                frames[key] = (frame['link'], values[0], rotation)
            (link_a, offset_a, rotation_a), (link_b, offset_b, rotation_b) = (
                frames['frame_a'], frames['frame_b'])
            closures.append(Closure(name, link_a, offset_a, link_b, offset_b, rows,
                                    rotation_a, rotation_b))
        actuated = data.get('actuated', [])
        if not isinstance(actuated, list):
            raise ValueError(f'{path}: actuated must be a list of joint names')
        return cls(robot, closures, actuated)

    # ------------------------------------------------------------------ kinematics
    def _state(self, value, name: str) -> np.ndarray:
        """Return ``value`` as a finite float64 vector, nq for 'q', else nv (ValueError)."""
        array = as_array(value, name)
        size = self.robot.nq if name == 'q' else self.robot.nv
        if array.shape != (size,) or not np.all(np.isfinite(array)):
            raise ValueError(f'{name}: expected {size} finite values for joints '
                             f'{list(self.robot.joint_names)}, got {value!r}')
        return array

    def _terms(self, q, qd=None) -> tuple:
        """
        Return (phi, Jc, Jcdot qd or None) at (q, qd): loop_closures.closure_terms_into.

        The compiled law the simulator's closed-chain step uses: frames a and b
        from the bodies' world poses, Jacobians moved to the frame origins,
        classical accelerations at qdd = 0 (a_p = a_o + alpha x r + w x (w x r));
        orientation rows: phi the rotation vector of R_a R_b^T, its rate
        w_a - w_b (exact at phi = 0, where the constraint is held), its
        acceleration alpha_a - alpha_b. test/closed_chain_oracle.py is its numpy twin.
        """
        q = self._state(q, 'q')
        rates = np.zeros(self.robot.nv) if qd is None else self._state(qd, 'qd')
        ensure_compiled(loop_closures.closure_terms)
        data = self._data.copy()
        loop_closures.closure_terms(self.robot.packed, q, rates, data,
                                    np.empty(self._scratch_size))
        jac, phi, jbias = loop_closures.chain_parts.py_func(data, 0, self.robot.nv)[5:8]
        return phi, jac, None if qd is None else jbias

    def residual(self, q) -> np.ndarray:
        """
        Return phi(q), the closures' rows stacked (m).

        Position rows: frame_a's origin minus frame_b's (m, root axes).
        Orientation rows (pose closures): the rotation vector of R_a R_b^T
        (rad, root axes), zero when the frames are aligned.
        """
        return self._terms(q)[0]

    def jacobian(self, q) -> np.ndarray:
        """Return Jc(q) (m x n) = d phi / dq (orientation rows: w_a - w_b, see _terms)."""
        return self._terms(q)[1]

    def bias(self, q, qd) -> np.ndarray:
        """Return Jcdot qd: the closure frames' relative acceleration at qdd = 0 (m)."""
        return self._terms(q, qd)[2]

    def check_rank(self, jac: np.ndarray, q=None) -> np.ndarray:
        """
        Return the singular values of Jc's passive columns; raise at a singular configuration.

        Two kinds: Jc itself losing rank (redundant or degenerate closures), and
        its columns of the passive (not actuated) joints losing rank, where the
        passive joints cannot follow the actuated ones (Ghosal's four-bar
        with links 2 and 3 aligned): the mechanism locks and the constraint
        forces grow without bound.
        """
        where = '' if q is None else f' at q = {np.round(q, 6).tolist()}'
        names = [c.name for c in self.closures]
        full = np.linalg.svd(jac, compute_uv=False)
        if full[-1] <= self.rank_tolerance * full[0]:
            raise ConstraintSingularity(
                f'closures {names}: the constraint Jacobian lost rank (singular values '
                f'{full.tolist()}){where}: redundant closures or a degenerate configuration; '
                'the constraint forces are not unique')
        passive = [k for k in range(jac.shape[1]) if k not in self.actuated]
        if self.actuated and len(passive) >= jac.shape[0]:
            values = np.linalg.svd(jac[:, passive], compute_uv=False)
            if values[-1] <= self.lock_tolerance * values[0]:
                raise ConstraintSingularity(
                    f'closures {names}: singular configuration{where}: the passive joints '
                    'cannot follow the actuated ones (links aligned, the mechanism locks); the '
                    f'constraint forces grow without bound (singular values {values.tolist()})')
            return values
        return full

    def singularity_margin(self, q, orientation: float = 1.0) -> float:
        """
        Return how far q is from a singular configuration (> 0 regular, <= 0 singular).

        The smaller of the relative smallest singular values of Jc and of its
        passive columns, each minus its tolerance. When the passive block is
        square its relative value is signed by ``orientation`` times the sign of
        its determinant, so that a step that jumps over the singularity (the
        links pass through alignment: the determinant changes sign) also reads
        as <= 0; ``orientation`` is that sign at the start (``lock_orientation``).
        """
        jac = self.jacobian(q)
        full = np.linalg.svd(jac, compute_uv=False)
        margin = full[-1] / full[0] - self.rank_tolerance
        passive = [k for k in range(jac.shape[1]) if k not in self.actuated]
        if self.actuated and len(passive) >= jac.shape[0]:
            block = jac[:, passive]
            values = np.linalg.svd(block, compute_uv=False)
            ratio = values[-1] / values[0]
            if block.shape[0] == block.shape[1]:
                ratio *= orientation * np.sign(np.linalg.det(block))
            margin = min(margin, ratio - self.lock_tolerance)
        return float(margin)

    def lock_orientation(self, q) -> float:
        """Return the sign of det(Jc's passive columns) at q (1.0 if that block is not square)."""
        jac = self.jacobian(q)
        passive = [k for k in range(jac.shape[1]) if k not in self.actuated]
        if not self.actuated or len(passive) != jac.shape[0]:
            return 1.0
        return float(np.sign(np.linalg.det(jac[:, passive])) or 1.0)

    # ------------------------------------------------------------------ dynamics
    def forward_dynamics(self, q, qd, tau, alpha: float = 0.0, beta: float = 0.0,
                         check: Union[bool, str] = True,
                         external_wrenches: Optional[Mapping] = None) -> tuple:
        """
        Return (qdd, lambda) from the KKT system with Baumgarte stabilisation.

        With ``check`` True (default) a singular configuration raises
        ConstraintSingularity (two SVDs, see check_rank); with False the
        system is solved by least squares (used for solve_ivp's trial stages,
        whose run a singularity event ends); with 'solve' it is solved
        directly and only an exactly singular KKT matrix raises (for callers
        that test ``singularity_margin`` themselves, like the Simulator's
        steps). external_wrenches: as for ``RobotModel.forward_dynamics``
        ({link: [f; t]}, world axes, at the link origin).
        """
        robot, n = self.robot, self.robot.nv
        q, qd, tau = self._state(q, 'q'), self._state(qd, 'qd'), self._state(tau, 'tau')
        fext = np.zeros((len(robot.body_names), 6))
        if external_wrenches:
            rows, _ = kinematics.link_wrench_rows(external_wrenches, robot.link_attachment,
                                                  'external_wrenches')
            if rows.shape[0]:
                ensure_compiled(kinematics.body_forces_batch)
                kinematics.body_forces_batch(robot.packed, q[None], rows, fext[None])
        if check is True:
            self.check_rank(self.jacobian(q), q)
        data = self._data.copy()
        data[layouts.K_ALPHA], data[layouts.K_BETA] = alpha, beta
        ensure_compiled(loop_closures.kkt_system)
        singular = loop_closures.kkt_system(robot.packed, q, qd, tau, fext, data,
                                            np.empty(self._scratch_size), 1 if check else 0)
        kkt, solution = loop_closures.chain_parts.py_func(data, 0, n)[3:5]
        if not check:   # least squares on the system as assembled
            solution = np.linalg.lstsq(kkt, solution, rcond=None)[0]
        elif singular >= 0:
            raise ConstraintSingularity(
                f'closures {[c.name for c in self.closures]}: the KKT matrix is singular '
                f'at q = {np.round(q, 6).tolist()} (a singular configuration)')
        return solution[:n], solution[n:]

    def inverse_dynamics(self, q, qd, qdd) -> tuple:
        """
        Return (actuator torques, lambda) producing a motion consistent with the closures.

        Solves M qdd + b = S^T tau_a + Jc^T lambda for the actuated torques and
        the constraint forces together, [S^T Jc^T] [tau_a; lambda] = M qdd + b,
        exactly (one solution) when the actuators plus the closures span the
        joint space; by least squares otherwise.
        """
        robot = self.robot
        need = robot.inverse_dynamics(q, qd, qdd)
        select = np.zeros((robot.dof, len(self.actuated)))
        select[self.actuated, range(len(self.actuated))] = 1.0
        jac = self.jacobian(q)
        self.check_rank(jac, q)
        solution, *_ = np.linalg.lstsq(np.hstack([select, jac.T]), need, rcond=None)
        return solution[:len(self.actuated)], solution[len(self.actuated):]

    def _check_vector_space(self, what: str) -> None:
        """Refuse a robot whose q is not a vector space (floating, planar or ball joints)."""
        robot = self.robot
        if robot.nq != robot.nv:
            raise ValueError(f'{what}: {robot.name!r} has floating, planar or ball joints '
                             f'(nq = {robot.nq}, nv = {robot.nv}); {what} steps q by adding '
                             'velocities and does not take them yet (forward_dynamics, '
                             'inverse_dynamics, residual and jacobian do)')

    # ------------------------------------------------------------------ consistent states
    def project(self, q, qd=None, fixed: Sequence[int] = (), tolerance: float = 1e-12,
                iterations: int = 50) -> tuple:
        """
        Return (q, qd) on the constraint manifold, keeping the ``fixed`` coordinates.

        Positions by damped Gauss-Newton on phi(q) = 0 (minimal-norm steps in
        the free coordinates), velocities by least squares (the minimal change
        with Jc qd = 0). Raises ValueError if it does not converge.
        """
        self._check_vector_space('project')
        q = np.array(q, dtype=float)
        free = [k for k in range(self.robot.dof) if k not in set(fixed)]
        for _ in range(iterations):
            phi, jac, _ = self._terms(q)
            if np.max(np.abs(phi)) < tolerance:
                break
            jac = jac[:, free]
            step = np.linalg.lstsq(jac, -phi, rcond=None)[0]
            q[free] += np.clip(step, -0.5, 0.5)
        else:
            raise ValueError(f'project: no consistent configuration near the given q after '
                             f'{iterations} iterations (max |phi| = '
                             f'{np.max(np.abs(self.residual(q))):.3g} m): the initial state is '
                             'too far from the constraint manifold')
        if qd is None:
            return q, np.zeros(self.robot.dof)
        qd = np.array(qd, dtype=float)
        jac = self.jacobian(q)
        qd = qd - np.linalg.pinv(jac) @ (jac @ qd)
        return q, qd

    # ------------------------------------------------------------------ simulation
    def simulate(self, q0, qd0, t_final: float, effort: Callable, dt: float = 1e-3,
                 alpha: float = 0.0, beta: float = 0.0, method: Optional[str] = None,
                 stop: Optional[Callable] = None, rtol: float = 1e-9,
                 atol: float = 1e-11) -> dict:
        """
        Integrate from (q0, qd0) and return t, q, qd, lambda and how it ended.

        effort(t, q, qd) -> (n,) joint torques. With ``method`` None: RK4 at
        ``dt``; else scipy's solve_ivp ('RK45', 'Radau', 'BDF') sampled every
        dt. ``stop(t, q, qd)`` > 0 ends the run (an event). A singular
        configuration ends it too (RK4: the step whose stages hit it; solve_ivp:
        the ``singularity_margin`` event), reported in ``result['end']`` =
        'singularity', ``result['singularity']`` (message with the time and q)
        and ``result['singularity_time']``; the samples stop at the last regular one.
        """
        self._check_vector_space('simulate')
        n = self.robot.dof

        def rhs(t, x):
            q, qd = x[:n], x[n:]
            qdd, _ = self.forward_dynamics(q, qd, effort(t, q, qd), alpha, beta)
            return np.concatenate([qd, qdd])

        times, states, reason = [0.0], [np.concatenate([q0, qd0])], 'time'
        singularity = ''
        orientation = self.lock_orientation(np.asarray(q0, dtype=float))
        if method is None:
            x, t = states[0].copy(), 0.0
            while t < t_final - 1e-12:
                try:
                    k1 = rhs(t, x)
                    k2 = rhs(t + dt / 2, x + dt / 2 * k1)
                    k3 = rhs(t + dt / 2, x + dt / 2 * k2)
                    k4 = rhs(t + dt, x + dt * k3)
                except ConstraintSingularity as error:
                    singularity, reason = f't = {t:.6f} s: {error}', 'singularity'
                    break
                x_next = x + dt / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
                if self.singularity_margin(x_next[:n], orientation) <= 0.0:
                    singularity = (f't = {t:.6f} s: the step to {t + dt:.6f} s crosses a '
                                   f'singular configuration from q = {np.round(x[:n], 6).tolist()}'
                                   ': links aligned, the mechanism locks (the determinant of '
                                   "Jc's passive columns changes sign)")
                    reason = 'singularity'
                    break
                x, t = x_next, t + dt
                times.append(t)
                states.append(x)
                if stop is not None and stop(t, x[:n], x[n:]) > 0:
                    reason = 'stop'
                    break
        else:
            from scipy.integrate import solve_ivp

            def loose(t, x):   # trial stages may step past a lock: the event ends the run there
                q, qd = x[:n], x[n:]
                qdd, _ = self.forward_dynamics(q, qd, effort(t, q, qd), alpha, beta,
                                               check=False)
                return np.concatenate([qd, qdd])

            def singular(t, x):
                return self.singularity_margin(x[:n], orientation)
            singular.terminal = True
            events = [singular]
            if stop is not None:
                def event(t, x):
                    return stop(t, x[:n], x[n:])
                event.terminal = True
                events.append(event)
            grid = np.arange(0.0, t_final + dt / 2, dt)
            result = solve_ivp(loose, (0.0, t_final), states[0], method=method, t_eval=grid,
                               events=events, rtol=rtol, atol=atol)
            if result.status < 0:
                raise RuntimeError(f'simulate: solve_ivp ({method}) failed: {result.message}')
            times, states = list(result.t), list(result.y.T)
            singular_time = None
            if len(result.t_events[0]):
                singular_time = float(result.t_events[0][0])
                q_hit = result.y_events[0][0][:n]
                reason = 'singularity'
                singularity = (f't = {singular_time:.6f} s: singular configuration at q = '
                               f'{np.round(q_hit, 6).tolist()}: the passive joints cannot '
                               'follow the actuated ones or Jc lost rank (links aligned, the '
                               'mechanism locks; the constraint forces grow without bound)')
                while times and self.singularity_margin(states[-1][:n], orientation) <= 0.0:
                    times.pop()
                    states.pop()
            elif stop is not None and len(result.t_events[1]):
                reason = 'stop'
                times.append(float(result.t_events[1][0]))
                states.append(result.y_events[1][0])
            return self._finish(times, states, effort, alpha, beta, reason, singularity,
                                singular_time)
        return self._finish(times, states, effort, alpha, beta, reason, singularity,
                            times[-1] if reason == 'singularity' else None)

    def _finish(self, times, states, effort, alpha, beta, reason, singularity,
                singular_time) -> dict:
        n = self.robot.dof
        q = np.array([s[:n] for s in states])
        qd = np.array([s[n:] for s in states])
        forces = np.array([self.forward_dynamics(a, b, effort(t, a, b), alpha, beta)[1]
                           for t, a, b in zip(times, q, qd)])
        return {'t': np.array(times), 'q': q, 'qd': qd, 'lambda': forces, 'end': reason,
                'singularity': singularity, 'singularity_time': singular_time}
