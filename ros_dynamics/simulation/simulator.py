# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
Forward-dynamics simulation of a RobotModel, usable without ROS.

``Simulator`` integrates qdd = FD(q, qd, tau) (ABA) at a fixed step with RK4 (default) or
semi-implicit Euler, like a light MuJoCo for arms:

    tau = sat(effort) - d qd - f tanh(qd / v_eps) - o - sigmoid(qd) + tau_limits(q, qd)

with the model's joint friction (``robot.actuators``: viscous d, Coulomb f smoothed below
``friction_velocity``, offset o and Gaz et al.'s sigmoid; by default the URDF's damping and
friction), efforts saturated at the URDF effort limits, and position limits enforced by a stiff,
critically damped one-sided spring (natural frequency 1 / (10 dt) of the joint's effective inertia,
so it is resolved by the integrator and cannot be stepped over). Continuous joints are unbounded.
External wrenches act at link origins (world axes).

A step that produces a non-finite state, or energy growth beyond ``energy_tolerance`` while no
effort or wrench is applied, raises ``SimulationDiverged`` and leaves the last good state in place.

``simulate`` runs a whole trajectory and returns arrays, with the fixed-step integrators or
``scipy.integrate.solve_ivp`` ('RK45', 'Radau', 'BDF': the MATLAB ODE45 / ODE15S counterparts).

Floating, planar and ball joints: the state is q (nq,), qd (nv,) (docs/conventions.md), q moved on
the manifold (integrators.py); a base's effort rows are a wrench on it in its own frame, as
Pinocchio's tau. Ground contact (``ground``, contacts/ground.py): semi-implicit time stepping.

Closed chains: given ``closures`` (a ``ClosedChain`` over the same model), the accelerations come
from its KKT system with Baumgarte stabilisation (closed_chain.py, after Ghosal's NPTEL notes),
efforts act on the actuated joints only, every state set is first projected onto the constraint
manifold (the actuated coordinates kept), and reaching a singular configuration (the mechanism
locks) raises ``SimulationSingular`` with the state before it kept. The steps are compiled too
(integrators.constrained_steps, loop_closures.py); the projection of a state set from Python stays
in Python.
"""

from typing import Callable, Mapping, Optional, Union

import numpy as np
from ros_dynamics.contacts import ground as ground_contact
from ros_dynamics.kernels import ground as ground_kernel, integrators, kinematics
from ros_dynamics.model.robot import RobotModel
from ros_dynamics.multibody import layouts
from ros_dynamics.runtime.batches import as_array
from ros_dynamics.runtime.jit import ensure_compiled
from ros_dynamics.runtime.statecall import StateCall
from ros_dynamics.simulation.closed_chain import ClosedChain, ConstraintSingularity
from ros_dynamics.simulation.coordinates import (LimitCoordinates, per_velocity_coordinate,
                                                 validated_positions)
from scipy.integrate import solve_ivp

INTEGRATORS = ('rk4', 'semi_implicit_euler')
# default relative energy growth tolerated with no input, per integrator (see Simulator)
ENERGY_TOLERANCE = {'rk4': 1e-3, 'semi_implicit_euler': 0.1}
# step(count) from this many steps calls numba's dispatcher, which releases the GIL
_BLOCK_STEPS = 64
# default Baumgarte (alpha, beta) in 1/s for closed chains (see docs/closed_chains.md)
BAUMGARTE = (10.0, 10.0)


class SimulationDiverged(RuntimeError):
    """The state became non-finite or gained energy with no input; the state was kept."""


class SimulationSingular(SimulationDiverged):
    """A closed chain reached a singular configuration (it locks); the state was kept."""


class Simulator:
    """Fixed-step forward dynamics of one robot: ``q`` (nq,), ``qd`` (nv,) (model unchanged)."""

    def __init__(self, robot: RobotModel, dt: float = 1e-3, integrator: Optional[str] = None,
                 q0=None, qd0=None, damping: bool = True, friction: bool = True,
                 limits: bool = True, friction_velocity: Optional[float] = None,
                 energy_tolerance: Optional[float] = None,
                 closures: Optional[ClosedChain] = None, baumgarte: tuple = BAUMGARTE,
                 ground: Optional[ground_contact.Ground] = None) -> None:
        """
        Start at q0 (nq,), qd0 (nv,); q0 defaults to the neutral q, clamped into the limits.

        damping, friction: True applies the model's viscous friction (N m s/rad) and its Coulomb,
        offset and sigmoid friction (N m; ``robot.actuators``, the URDF's ``<dynamics>`` unless an
        actuators YAML says otherwise, read here once), False none, or give per-joint values
        (viscous; Coulomb only). friction_velocity: v_eps (rad/s), None for the model's. limits:
        enforce the position limits. energy_tolerance: relative energy growth (of max(1 J, |E|,
        kinetic energy)) tolerated with no input before the simulation counts as diverged; None
        picks the integrator's default (ENERGY_TOLERANCE: RK4 conserves energy to ~1e-6 here, while
        semi-implicit Euler conserves only a modified energy, so its energy oscillates by O(omega
        dt), up to several percent while a limit stop, tuned to omega dt = 0.1, is engaged; a real
        instability grows exponentially and still trips the larger bound within a few steps).
        closures: loop closures of a closed chain built on ``robot``; baumgarte: its (alpha, beta)
        in 1/s (see ClosedChain.forward_dynamics). ground: a Ground (contacts/ground.py);
        integrator: None for 'rk4', or 'semi_implicit_euler' with ground.
        """
        self.ground, self._ground = ground, ground_contact.ground_data(robot, ground, closures)
        self.robot = robot
        self._nq = robot.nq
        if closures is not None and robot.nq != robot.nv:
            raise ValueError(f'closures: closed chains are simulated with one-dof joints only '
                             f'(nq {robot.nq}, nv {robot.nv})')
        if closures is not None and closures.robot is not robot:
            raise ValueError('closures: the ClosedChain must be built on the simulated robot '
                             f'model ({robot.name!r})')
        alpha, beta = baumgarte
        if not (np.isfinite(alpha) and np.isfinite(beta) and alpha >= 0.0 and beta >= 0.0):
            raise ValueError(f'baumgarte: expected (alpha, beta) >= 0 in 1/s, got {baumgarte!r}')
        self.closures = closures
        self._passive = np.full(robot.dof, closures is not None)   # joints without a motor
        if closures is not None:
            self._passive[closures.actuated] = False
        self._baumgarte = (float(alpha), float(beta))
        self._lock_sign = 1.0
        self._chain = (None if closures is None
                       else closures.compiled_data(*self._baumgarte, self._lock_sign))
        # the compiled step's settings and energy-check state (integrators.py), with the time
        self._control = np.zeros(layouts.NCONTROL)
        self._control[layouts.C_DENSE] = robot.has_mimic   # ABA has no mimic step
        self._control[layouts.C_LIMITS] = bool(limits)
        self.dt = dt
        self.integrator = integrator
        actuators = robot.actuators
        spread = per_velocity_coordinate(robot)   # a joint's terms on each of its coordinates
        self._damping = self._coefficients(damping, spread(actuators.viscous), 'damping')
        self._friction = self._coefficients(friction, spread(actuators.coulomb), 'friction')
        self._offset = spread(actuators.offset) if friction is True else np.zeros(robot.dof)
        self._sigmoid = (spread(actuators.sigmoid) if friction is True
                         else np.zeros((robot.dof, 3)))
        self._extra_friction = bool(np.any(self._offset) or np.any(self._sigmoid[:, 0]))
        if friction_velocity is None:
            friction_velocity = actuators.friction_velocity
        if not friction_velocity > 0.0:
            raise ValueError(f'friction_velocity: must be > 0, got {friction_velocity!r}')
        self._friction_velocity = friction_velocity
        self._limits = limits
        # limits per velocity coordinate, and where their joint's position sits in q
        self._coordinates = coordinates = LimitCoordinates(robot)
        self._lower, self._upper = coordinates.lower, coordinates.upper
        self.energy_tolerance = energy_tolerance
        self._q0 = (coordinates.clamped_neutral(robot) if q0 is None
                    else validated_positions(robot, q0, 'q0'))
        self._qd0 = np.zeros(robot.dof) if qd0 is None else self._vector(qd0, 'qd0')
        if closures is not None:
            self._q0, self._qd0 = self._consistent(self._q0, self._qd0, 'q0')
        self._stop_stiffness = np.zeros(robot.dof)
        self._stop_damping = np.zeros(robot.dof)
        self._tune_stops()
        self.effort = np.zeros(robot.dof)
        self.set_wrenches(None)
        self.reset()

    # ------------------------------------------------------------------ configuration
    @property
    def dt(self) -> float:
        """Integration step (s)."""
        return self._dt

    @dt.setter
    def dt(self, value: float) -> None:
        if not (isinstance(value, (int, float)) and np.isfinite(value) and value > 0.0):
            raise ValueError(f'dt: expected a positive step in s, got {value!r}')
        self._dt = float(value)
        self._control[layouts.C_DT] = self._dt
        if hasattr(self, '_stop_stiffness'):
            self._tune_stops()

    @property
    def energy_tolerance(self) -> float:
        """Relative energy growth tolerated with no input (the integrator's default if None)."""
        if self._energy_tolerance is None:
            return ENERGY_TOLERANCE[self._integrator]
        return self._energy_tolerance

    @energy_tolerance.setter
    def energy_tolerance(self, value: Optional[float]) -> None:
        if value is not None and not (isinstance(value, (int, float)) and value > 0.0):
            raise ValueError(
                f'energy_tolerance: expected a positive number or None, got {value!r}')
        self._energy_tolerance = None if value is None else float(value)
        self._control[layouts.C_TOLERANCE] = self.energy_tolerance

    @property
    def integrator(self) -> str:
        """'rk4' or 'semi_implicit_euler'."""
        return self._integrator

    @integrator.setter
    def integrator(self, value: Optional[str]) -> None:
        value = ground_contact.integrator_for(self.ground, value)   # None: the default
        if value not in INTEGRATORS:
            raise ValueError(f'integrator: expected one of {INTEGRATORS}, got {value!r}')
        self._integrator = value
        self._control[layouts.C_RK4] = value == 'rk4'
        if hasattr(self, '_energy_tolerance'):
            self._control[layouts.C_TOLERANCE] = self.energy_tolerance

    def _coefficients(self, value, urdf: np.ndarray, name: str) -> np.ndarray:
        """Return per-joint coefficients: True = the URDF's, False = none, or given values."""
        if value is True or value is False:
            return urdf.copy() if value else np.zeros(self.robot.dof)
        coefficients = self._vector(value, name)
        if np.any(coefficients < 0.0):
            raise ValueError(f'{name}: coefficients must be >= 0, got {value!r}')
        return coefficients

    def _vector(self, value, name: str) -> np.ndarray:
        array = as_array(value, name)
        if array.shape != (self.robot.dof,) or not np.all(np.isfinite(array)):
            raise ValueError(f'{name}: expected {self.robot.dof} finite values for joints '
                             f'{list(self.robot.joint_names)}, got {value!r}')
        return array.copy()

    def _tune_stops(self) -> None:
        """Stop stiffness k = m w^2 and damping 2 m w, w = 1 / (10 dt), m = diag(M(q0))."""
        if not hasattr(self, '_q0'):
            return
        inertia = np.diag(self.robot.mass_matrix(self._q0)).copy()
        inertia = np.maximum(inertia, 1e-6)
        omega = 1.0 / (10.0 * self._dt)
        self._stop_stiffness = inertia * omega ** 2
        self._stop_damping = 2.0 * inertia * omega
        # the same parameters, as rows (layouts.PARAMS_LAYOUT), for the compiled step
        self._params = np.empty((layouts.NPARAMS, self.robot.dof))
        for name, value in (('DAMPING', self._damping), ('FRICTION', self._friction),
                            ('FRICTION_VELOCITY', self._friction_velocity), ('LOWER', self._lower),
                            ('UPPER', self._upper), ('STOP_STIFFNESS', self._stop_stiffness),
                            ('STOP_DAMPING', self._stop_damping), ('OFFSET', self._offset),
                            ('SIGMOID', self._sigmoid.T), ('Q_INDEX', self._coordinates.qindex)):
            self._params[layouts.PARAMS_LAYOUT.columns(name)] = value
        self._new_block()

    block = property(lambda self: self._block, doc="""The compiled step's block (rollouts read it):
        integrators.block_size's control, parameter rows, wrench rows, scratch; never write it.""")

    def _new_block(self) -> None:
        """Lay out the compiled step's block (integrators.block_size): control, rows, scratch."""
        if not (hasattr(self, '_params') and hasattr(self, '_wrench_rows')):
            return
        n, wrench_count = self.robot.dof, self._wrench_rows.shape[0]
        self._control[layouts.C_WRENCHES] = wrench_count
        body_count = self.robot.packed.shape[0] - 1
        size = integrators.block_size.py_func(n, body_count, wrench_count)
        start = size
        if self._chain is not None:   # the closed chain's data follow (loop_closures)
            size += self._chain.size
        block = np.zeros(size + self._ground.size)   # then the ground's data, if any
        parts = [self._control, self._params.ravel(), self._wrench_rows.ravel()]
        block[:sum(part.size for part in parts)] = np.concatenate(parts)
        block[size:], self._ground = self._ground, block[size:]   # contacts/ground_kernel.py
        if self._chain is not None:
            block[start:start + self._chain.size] = self._chain
            self._chain = block[start:start + self._chain.size]   # seen by the step
        self._block = block
        # the energy's own kinematics work, apart from the steps' (simulator_energy)
        self._scratch = np.empty(body_count * (layouts.NKINEMATICS + 12))
        self._control = block[:layouts.NCONTROL]   # one array, seen by both calls
        self._control[layouts.C_COUNT] = 1
        self._step_call = None   # bound again to the new block on the next step
        self._state_shape = (self.robot.nq + self.robot.dof,)

    def _consistent(self, q: np.ndarray, qd: np.ndarray, name: str) -> tuple:
        """Project (q, qd) onto the closures' manifold, keeping the actuated coordinates."""
        chain = self.closures
        try:
            q, qd = chain.project(q, qd, fixed=chain.actuated)
            chain.check_rank(chain.jacobian(q), q)
        except ConstraintSingularity as error:
            raise ValueError(f'{name}: the closed chain is at a singular configuration: '
                             f'{error}') from None
        except ValueError as error:
            raise ValueError(f'{name}: {error} (the actuated joints are kept, the passive '
                             'ones solved for; start closer to an assembled configuration)'
                             ) from None
        return q, qd

    # ------------------------------------------------------------------ state and inputs
    @property
    def t(self) -> float:
        """Return the simulated time (s)."""
        return float(self._control[layouts.C_TIME])

    @t.setter
    def t(self, value: float) -> None:
        self._control[layouts.C_TIME] = value

    def reset(self) -> None:
        """Return to the initial state at t = 0 (inputs are kept)."""
        self.t = 0.0
        self.q = self._q0.copy()
        self.qd = self._qd0.copy()
        self._new_state()

    def set_state(self, q=None, qd=None) -> None:
        """
        Overwrite positions q (nq,) and/or velocities qd (nv,) (time is kept).

        Quaternions and planar (cos, sin) in q are normalised (a zero one is refused with
        ValueError).

        A closed chain's state is projected onto its constraint manifold: the actuated coordinates
        as given, the passive ones solved for, the velocities made consistent (ValueError if no
        configuration is near).
        """
        new_q = self.q if q is None else validated_positions(self.robot, q, 'q')
        new_qd = self.qd if qd is None else self._vector(qd, 'qd')
        if self.closures is not None:
            new_q, new_qd = self._consistent(new_q, new_qd, 'q' if q is not None else 'qd')
        self.q, self.qd = new_q, new_qd
        self._new_state()

    def _new_state(self) -> None:
        ground_contact.restart(self._ground, self.robot.nv)   # no warm start from another state
        self._control[layouts.C_REFERENCE] = self.energy()
        self._control[layouts.C_KINETIC_SCALE] = self._kinetic
        if self.closures is not None:
            self._lock_sign = self.closures.lock_orientation(self.q)
            self._chain[layouts.K_LOCK_SIGN] = self._lock_sign

    def set_effort(self, effort) -> None:
        """
        Apply joint efforts (N m or N), saturated at the URDF effort limits.

        Non-finite values are accepted here and make the next step diverge (the state is kept), so
        a bad command pauses a simulation rather than being silently dropped.
        """
        effort = as_array(effort, 'effort')
        if effort.shape != (self.robot.dof,):
            raise ValueError(f'effort: expected {self.robot.dof} values, got shape '
                             f'{effort.shape}')
        limit = self.robot.effort_limit
        effort = np.where(np.isnan(effort), effort, np.clip(effort, -limit, limit))
        effort[self._passive] = 0.0   # the passive joints of a closed chain have no actuator
        self.effort = effort

    def set_wrenches(self, wrenches: Optional[Mapping] = None) -> None:
        """Apply external wrenches {link: [f; t]} (world axes, at the link origin); None clears."""
        # ValueError for an unknown link or a bad wrench (kinematics.link_wrench_rows)
        wrenches = wrenches or {}
        if not isinstance(wrenches, dict):   # any mapping, or (link, wrench) pairs
            wrenches = dict(wrenches)
        self._wrench_rows, self._wrenches = kinematics.link_wrench_rows(
            wrenches, self.robot.link_attachment, 'wrenches')
        self._new_block()

    @property
    def wrenches(self) -> dict:
        """Return the applied wrenches {link: [f; t]} (world axes, at the link origin)."""
        return self._wrenches

    @wrenches.setter
    def wrenches(self, value: Optional[Mapping]) -> None:
        self.set_wrenches(value)

    @property
    def has_input(self) -> bool:
        """Return True when an effort or a wrench is applied."""
        # count_nonzero counts NaN as ndarray.any() does, at a fraction of its cost: the
        # node's as-fast-as-possible loop asks every step
        if np.count_nonzero(self.effort):
            return True
        return bool(self.wrenches) and any(w.any() for w in self.wrenches.values())

    # ------------------------------------------------------------------ physics
    def joint_torques(self, q: np.ndarray, qd: np.ndarray) -> np.ndarray:
        """
        Return the total joint torque (nv,): effort - damping - friction + limit stops.

        q (nq,), qd (nv,); the compiled steps' law (joint_torques.joint_torques_into).
        """
        return self._torques(q, qd, 0)

    def limit_torques(self, q: np.ndarray, qd: np.ndarray) -> np.ndarray:
        """Return the one-sided spring-damper torques (nv,) of the position limits at q (nq,)."""
        return self._torques(q, qd, 1)

    def _torques(self, q, qd, stops_only: int) -> np.ndarray:
        q, qd = as_array(q, 'q'), as_array(qd, 'qd')
        if q.shape != (self._nq,) or qd.shape != (self.robot.dof,):
            raise ValueError(f'q, qd: expected shapes ({self._nq},) and ({self.robot.dof},), '
                             f'got {q.shape} and {qd.shape}')
        ensure_compiled(integrators.simulator_torques)
        tau = np.empty(self.robot.dof)
        integrators.simulator_torques(q, qd, self.effort, self._block, stops_only, tau)
        return tau

    def acceleration(self, q: np.ndarray, qd: np.ndarray) -> np.ndarray:
        """Return qdd at (q, qd) under the current inputs (with the closures' forces)."""
        ground_contact.refuse_acceleration(self.ground)
        if self.closures is not None:
            return self._constrained(q, qd)[0]
        return self.robot.forward_dynamics(q, qd, self.joint_torques(q, qd),
                                           self.wrenches or None)

    def _constrained(self, q: np.ndarray, qd: np.ndarray, check: Union[bool, str] = 'solve'
                     ) -> tuple:
        # 'solve': no SVD per stage; each step ends with the singularity_margin test
        alpha, beta = self._baumgarte
        return self.closures.forward_dynamics(q, qd, self.joint_torques(q, qd), alpha, beta,
                                              check, self.wrenches or None)

    def constraint_forces(self) -> np.ndarray:
        """Return lambda (N, N m; closed_chain.py) at the current state and inputs, or (0,)."""
        if self.closures is None:
            return np.zeros(0)
        return self._constrained(self.q, self.qd, check=True)[1]

    def constraint_residual(self) -> float:
        """Return max |phi(q)| of the loop closures (m or rad; 0 without closures)."""
        if self.closures is None:
            return 0.0
        return float(np.max(np.abs(self.closures.residual(self.q))))

    def step(self, count: int = 1) -> None:
        """
        Advance ``count`` steps; on SimulationDiverged the last good state is kept.

        The steps run in one compiled call (integrators.simulation_steps, or constrained_steps for
        a closed chain).
        """
        call = self._step_call
        if count != 1 or call is None or self._step_model is not self.robot.packed:
            self._steps(count)
            return
        # one step through the bound C callback (~0.1 us a call, _jit.StateCall): the
        # per-step path of a real-time loop, kept lean
        out = np.empty(self._state_shape)
        status = call.into(out, self.q, self.qd, self.effort)
        nq = self._nq
        self.q, self.qd = out[:nq], out[nq:]
        if status:
            self._raise_step_error(status)

    def _steps(self, count: int) -> None:
        """Advance ``count`` steps: a block, or a first step."""
        if count >= _BLOCK_STEPS:   # numba's dispatcher: more per call, but the GIL released
            steps = (integrators.simulation_steps if self.closures is None
                     else integrators.constrained_steps)
            steps = steps if self.ground is None else ground_kernel.ground_steps
            ensure_compiled(steps)
            q, qd = self.q.copy(), self.qd.copy()
            status = steps(self.robot.packed, q, qd, self.effort, self._block, int(count))
        else:   # the C callback
            call = self._step_call
            if call is None or self._step_model is not self.robot.packed:
                call = self._bind_step()
            self._control[layouts.C_COUNT] = count
            out = np.empty(self._state_shape)
            try:
                status = call.into(out, self.q, self.qd, self.effort)
            finally:
                self._control[layouts.C_COUNT] = 1   # what step()'s fast path expects
            q, qd = out[:self._nq], out[self._nq:]
        self.q, self.qd = q, qd
        if status != integrators.DONE:
            self._raise_step_error(status)

    def _bind_step(self):
        """Bind the compiled step (a C callback) to the model and this simulator's block."""
        entry = (integrators.simulation_steps_entry if self.closures is None
                 else integrators.constrained_steps_entry)
        entry = entry if self.ground is None else ground_kernel.ground_steps_entry
        ensure_compiled(entry)
        self._step_model = model = self.robot.packed
        self._step_call = StateCall(entry.address, model, self.robot.dof, 3,
                                    self._state_shape, self._block, self.robot.nq)
        return self._step_call

    def _raise_step_error(self, status: int) -> None:
        """Raise the error of a refused compiled step (the state was kept)."""
        where = f't = {self.t:.6f} s'
        if self.closures is not None and (status == integrators.LOCKED or status < 0):
            if status == integrators.LOCKED:
                message = (f'the step to {self.t + self._dt:.6f} s reaches or crosses a singular '
                           f'configuration from q = {np.round(self.q, 6).tolist()} (links '
                           "aligned: the mechanism locks; the determinant of Jc's passive "
                           'columns changes sign)')
            else:   # as ClosedChain.forward_dynamics's error
                message = (f'closures {[c.name for c in self.closures.closures]}: the KKT '
                           f'matrix is singular at q = {np.round(self.q, 6).tolist()} (a '
                           'singular configuration)')
            raise SimulationSingular(f'{where}: {message}; kept the last good state')
        if status == integrators.ENERGY_GREW:
            control = self._control
            raise SimulationDiverged(
                f'{where}: energy grew from {control[layouts.C_REFERENCE]:.6g} J to '
                f'{control[layouts.C_ENERGY]:.6g} J with no input (dt = {self._dt} s too '
                'large?); kept the last good state')
        if status < 0:
            message = str(self.robot.singular_mass_error(-status - 1))
        else:
            message = 'the state became non-finite'
        raise SimulationDiverged(f'{where} (dt = {self._dt} s): {message}; kept the last good '
                                 'state') from None

    @property
    def contact_forces(self) -> np.ndarray:
        """Return the ground points' forces (k, 3) (N, world axes) over the last step (Ground)."""
        return ground_contact.ground_outputs(self._ground, self.robot.nv)[0].copy()

    def energy(self) -> float:
        """Return the total energy in J: kinetic, potential and limit springs."""
        return self._energy_of(self.q, self.qd)

    def _energy_of(self, q: np.ndarray, qd: np.ndarray) -> float:
        if not (np.isfinite(q).all() and np.isfinite(qd).all()):
            raise ValueError('the state is not finite')
        ensure_compiled(integrators.simulator_energy)
        # the kernel straight away: every step of an unforced run checks the energy, and
        # the public methods' argument checks cost more than the kernel
        out = np.empty(2)
        integrators.simulator_energy(self.robot.packed, q, qd, self._block, self._scratch, out)
        self._kinetic = out[1]
        return float(out[0])


def simulate(robot: RobotModel, q0, qd0, t_final: float, dt: float = 1e-3,
             effort: Union[None, np.ndarray, Callable] = None, integrator: Optional[str] = None,
             method: Optional[str] = None, rtol: float = 1e-8, atol: float = 1e-10,
             **options) -> tuple:
    """
    Simulate from (q0, qd0) to ``t_final`` and return arrays t (T,), q (T, nq), qd (T, nv).

    effort: None (zero), a constant (nv,) array, or a callable ``effort(t, q, qd) -> (nv,)``. With
    ``method`` None the fixed-step ``integrator`` runs at ``dt`` and every step is returned; with
    method 'RK45', 'Radau' or 'BDF' scipy's solve_ivp integrates adaptively (rtol, atol) and the
    result is sampled every ``dt`` (one-dof joints only: solve_ivp adds qd to q in R^n, not on the
    manifold). Other options go to ``Simulator`` (damping, friction, limits, ...).
    """
    if not (isinstance(t_final, (int, float)) and np.isfinite(t_final) and t_final >= 0.0):
        raise ValueError(f't_final: expected a finite time >= 0 in s, got {t_final!r}')
    if method is not None and robot.nq != robot.nv:
        raise ValueError(f'method: {method!r} (solve_ivp) integrates q + qd in R^n, not on the '
                         f'manifold of floating, planar or ball joints (nq {robot.nq}, nv '
                         f'{robot.nv}): use method=None (the fixed-step integrators)')
    simulator = Simulator(robot, dt=dt, integrator=integrator, q0=q0, qd0=qd0, **options)
    dof = robot.dof
    steps = int(round(t_final / dt))
    times = np.arange(steps + 1) * dt

    def apply(t, q, qd):
        if callable(effort):
            simulator.set_effort(effort(t, q, qd))
        elif effort is not None:
            simulator.set_effort(effort)

    if method is None:
        qs, qds = np.empty((steps + 1, robot.nq)), np.empty((steps + 1, dof))
        qs[0], qds[0] = simulator.q, simulator.qd
        for k in range(steps):
            apply(simulator.t, simulator.q, simulator.qd)
            simulator.step()
            qs[k + 1], qds[k + 1] = simulator.q, simulator.qd
        return times, qs, qds

    def rhs(t, x):
        q, qd = x[:dof], x[dof:]
        apply(t, q, qd)
        return np.concatenate([qd, simulator.acceleration(q, qd)])

    solution = solve_ivp(rhs, (0.0, times[-1]), np.concatenate([simulator.q, simulator.qd]),
                         method=method, t_eval=times, rtol=rtol, atol=atol)
    if not solution.success:
        raise SimulationDiverged(f'solve_ivp ({method}) failed: {solution.message}')
    return solution.t, solution.y[:dof].T, solution.y[dof:].T
