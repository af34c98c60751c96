# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
The simulator's fixed-step advance, compiled: a block of steps in one call.

One step (RK4 or semi-implicit Euler) makes four forward-dynamics calls (ABA,
Featherstone 2008 table 7.1, or the dense solve for mimic joints) on the
simulator's joint torques (effort, damping, friction, limit stops:
joint_torques.py) and external wrenches (world axes, at link origins) turned
into body forces at each stage's configuration.
The state is q (nq,) and qd (nv,): positions move on the configuration
manifold, q (+) h v (manifold.integrate_into: quaternions renormalised every
stage), velocities and accelerations add in R^nv. RK4 is Munthe-Kaas's
RKMK4 with its minimal commutators (H. Munthe-Kaas, "High order Runge-Kutta
methods on manifolds", Appl. Numer. Math. 29, 1999; Hairer, Lubich and
Wanner, "Geometric Numerical Integration", 2006, sec. IV.8): the stages
q_i = q (+) h_i v_i, the slopes in v-space, the final combination applied
with one integrate, plus two Lie brackets of the multi-dof joints'
velocities (manifold.add_bracket). Without them the scheme is of order 2
on rotations (measured: the error falls 4x per halved step on a tumbling
body, 16x with them). For one-dof joints the brackets vanish and
q (+) h v = q + h v: the same floating-point operations as the plain RK4
on (q, qd), which ``rk4_stage`` takes for models of one-dof joints only (the
pack-time flag joints.one_dof_joints).
``simulation_steps`` runs ``count`` such steps and the simulator's energy
health check after each one (no input applied: the total energy may not grow
by more than the tolerance, see ``Simulator``), so that a step costs one
crossing from Python or less. ``rollouts/`` reuses it for many simulations
at once. ``constrained_steps`` does the same for a closed chain: each stage's
accelerations from the KKT system with Baumgarte's stabilisation
(loop_closures.py), and after each step the singularity-margin test of
``ClosedChain.singularity_margin``.
"""

from collections import namedtuple

from numba import carray, types
import numpy as np
from ros_dynamics.kernels import kinematics
from ros_dynamics.kernels.aba import aba_into, dense_into
from ros_dynamics.kernels.joint_torques import add_stop_torques, energy_terms, joint_torques_into
from ros_dynamics.kernels.loop_closures import (chain_parts, chain_size, kkt_acceleration_into,
                                                singular_configuration)
from ros_dynamics.kernels.manifold import add_bracket, integrate_into
from ros_dynamics.multibody.joints import body_count, model_at, nq_of, one_dof_joints, state_at
from ros_dynamics.multibody.layouts import (C_COUNT, C_DENSE, C_DT, C_ENERGY, C_KINETIC,
                                            C_KINETIC_SCALE, C_LIMITS, C_REFERENCE, C_RK4, C_TIME,
                                            C_TOLERANCE, C_WRENCHES, K_CLOSURES, K_ROWS, NABA,
                                            NCLOSURE_HEADER, NCONTROL, NKINEMATICS, NPARAMS, NPOSE,
                                            NSPATIAL, NWRENCH, WRENCH_FORCE)
from ros_dynamics.runtime.jit import IN1, IN2, kernel, OUT1, state_entry, STATUS
from ros_dynamics.runtime.views import borrowed, read_only

# the parameter rows (PARAMS_LAYOUT), the wrench rows (WRENCH_LAYOUT) and the control array
# (CONTROL_LAYOUT) are declared in layouts.py

# what a step's stages share (a named record: numba passes it as a tuple, nothing at run time;
# the entry points keep positional arguments, a record costs ~0.8 us at the Python boundary):
# effort (nv,), parameter rows (NPARAMS, nv), wrench rows (w, NWRENCH), the stops on, the
# dense solve (mimic joints) instead of ABA, the workspace of block_parts
Step = namedtuple('Step', ['effort', 'params', 'wrenches', 'limits', 'dense', 'workspace'])

# statuses of simulation_steps (besides -(k + 1): M singular at k; for constrained_steps the
# KKT matrix singular at column k)
DONE = 0
NON_FINITE = 1
ENERGY_GREW = 2
LOCKED = 3          # constrained_steps: the step reaches or crosses a singular configuration


@kernel
def block_params(block, n):
    """Return the parameter rows (NPARAMS, n), read-only, of a simulator's block (block_size)."""
    return read_only(block[NCONTROL:NCONTROL + NPARAMS * n].reshape((NPARAMS, n)))


@kernel(signatures=[STATUS(IN1, IN1, IN1, IN1, types.int64, OUT1)])
def simulator_torques(q, qd, effort, block, stops_only, tau):
    """
    Write a simulator's joint torques (nv,) at q (nq,), qd (nv,) into ``tau``; return 0.

    ``block``: the simulator's block (block_size). stops_only 0:
    joint_torques_into with the effort (nv,) and the block's C_LIMITS; 1: the
    stops' torques only (add_stop_torques, whatever C_LIMITS says).
    """
    q, qd, effort, block, stops_only, tau = borrowed((q, qd, effort, block, stops_only, tau))
    params = block_params(block, qd.shape[0])
    if stops_only:
        tau[:] = 0.0
        add_stop_torques(q, qd, params, tau)
    else:
        joint_torques_into(q, qd, effort, params, block[C_LIMITS] != 0.0, tau)
    return 0


@kernel(signatures=[STATUS(IN2, IN1, IN1, IN1, OUT1, OUT1)])
def simulator_energy(model, q, qd, block, scratch, out):
    """
    Write a simulator's (E, T) (J, energy_terms) at q (nq,), qd (nv,) into out (2,); return 0.

    ``block``: the simulator's block (parameter rows, C_LIMITS); ``scratch``
    (nb (NKINEMATICS + 12)) is overwritten, not the block's workspace
    (a caller on another thread than the steps'). Simulator.energy.
    """
    model, q, qd, block, scratch, out = borrowed((model, q, qd, block, scratch, out))
    nb = body_count(model)
    params = block_params(block, qd.shape[0])
    work = scratch[:nb * NKINEMATICS].reshape((nb, NKINEMATICS))
    poses = scratch[nb * NKINEMATICS:nb * (NKINEMATICS + 12)].reshape((nb, 12))
    out[0], out[1] = energy_terms(model, q, qd, params, block[C_LIMITS] != 0.0, work, poses)
    return 0


@kernel
def block_size(n, nb, wrench_count):
    """
    Return the length of a simulator's block for n coordinates, nb bodies and wrench rows.

    A block is one float array: control (NCONTROL), the parameter rows
    (NPARAMS, n), the wrench rows (wrench_count, NWRENCH), then the scratch
    arrays of ``advance`` (``block_parts``), so that a step allocates nothing.
    n is nv; the two position-sized vectors get n + nb >= nq entries each
    (a joint has at most one position coordinate more than velocities).
    """
    scratch = nb * (NABA + NSPATIAL + NKINEMATICS + NPOSE) + n * n + 9 * n + 2 * (n + nb)
    return NCONTROL + NPARAMS * n + NWRENCH * wrench_count + scratch


@kernel
def block_parts(block, nq, n, nb):
    """
    Return views of a block: control, params, wrenches, workspace, q_next (nq,), qd_next (n,).

    The workspace is the tuple ``advance`` takes: ABA/dense work (nb,
    NABA), mass matrix (n, n), body forces (nb, 6), kinematics work (nb,
    NKINEMATICS), world poses (nb, NPOSE), tau, the four RK4 slopes (n,),
    a stage state q (nq,) and qd (n,), and the velocities of RK4's second
    and third stages (n,). n is nv.
    """
    control = block[:NCONTROL]
    wrench_count = int(control[C_WRENCHES])
    start = NCONTROL
    params = block[start:start + NPARAMS * n].reshape((NPARAMS, n))
    start += NPARAMS * n
    wrenches = block[start:start + NWRENCH * wrench_count].reshape((wrench_count, NWRENCH))
    start += NWRENCH * wrench_count
    work = block[start:start + nb * NABA].reshape((nb, NABA))
    start += nb * NABA
    mass = block[start:start + n * n].reshape((n, n))
    start += n * n
    fext = block[start:start + nb * NSPATIAL].reshape((nb, NSPATIAL))
    start += nb * NSPATIAL
    kinematic_work = block[start:start + nb * NKINEMATICS].reshape((nb, NKINEMATICS))
    start += nb * NKINEMATICS
    poses = block[start:start + nb * NPOSE].reshape((nb, NPOSE))
    start += nb * NPOSE
    vectors = block[start:start + 9 * n].reshape((9, n))
    start += 9 * n
    positions = block[start:start + 2 * nq].reshape((2, nq))
    workspace = (work, mass, fext, kinematic_work, poses, vectors[0], vectors[1], vectors[2],
                 vectors[3], vectors[4], positions[0], vectors[5], vectors[6], vectors[7])
    return control, read_only(params), read_only(wrenches), workspace, positions[1], vectors[8]


@kernel
def body_forces_into(model, q, wrenches, kinematic_work, poses, fext):
    """
    Write the body forces (n, f) (nb, 6), body coordinates, of world-axis link wrenches at q.

    A wrench [f; t] at a link origin o (world axes) acts on the link's body as
    the moment t + (R o_b) x f about the body origin and the force f, both
    rotated into body coordinates by R^T (R the body's world rotation, o_b the
    link origin in body coordinates).
    """
    for i in range(fext.shape[0]):
        for j in range(6):
            fext[i, j] = 0.0
    kinematics.transforms(model, q, kinematic_work)
    kinematics.world_poses(model, kinematic_work, poses)
    kinematics.add_link_wrenches(poses, wrenches, fext)


@kernel(inline=True)   # a record of 20 arrays: a call would copy them
def acceleration_into(model, q, qd, step, qdd, chain):
    """
    Write qdd under the step's effort and wrenches into ``qdd``; return -1 or the singular index.

    ``step``: a Step record. ABA (or the dense solve) sees read-only states
    and body forces: the argument types of the batch kernels, whose compiled
    specialisations it then shares (compile time). ``chain``: None (compiled
    away), or a closed chain's data (loop_closures.chain_parts): then the KKT
    system.
    """
    work, mass, fext, kinematic_work, poses, tau = step.workspace[:6]
    joint_torques_into(q, qd, step.effort, step.params, step.limits, tau)
    if step.wrenches.shape[0] > 0:
        body_forces_into(model, q, step.wrenches, kinematic_work, poses, fext)
    q, qd, torque, forces = read_only(q), read_only(qd), read_only(tau), read_only(fext)
    if chain is not None:
        return kkt_acceleration_into(model, q, qd, torque, forces, chain, work, mass,
                                     kinematic_work, poses, qdd)
    if step.dense:
        return dense_into(model, q, qd, torque, forces, work, mass, qdd)
    return aba_into(model, q, qd, torque, forces, work, qdd)


@kernel(inline=True)   # a record of 20 arrays: a call would copy them
def advance(model, q, qd, step, dt, rk4, q_next, qd_next, chain):
    """
    Write the state one step of ``dt`` after (q, qd) into (q_next, qd_next).

    RK4 or semi-implicit Euler (qd+ = qd + dt qdd, q+ = q (+) dt qd+) on
    the manifold (module docstring): RKMK4, or the classical RK4 when every
    joint has one coordinate (joints.one_dof_joints, the pack-time flag), the
    same floating-point operations on fewer loops. Each stage's point goes to
    the workspace (``rk4_stage``) and its slope comes from one
    ``acceleration_into`` (compiled once, not once per stage). Return 0; 1
    if the new state is not finite; -(k + 1) if the mass matrix (with
    ``chain``: the KKT matrix) is singular at index k.
    """
    k1, k2, k3, k4, qs, qds = step.workspace[6:12]
    plain = one_dof_joints(model)
    singular = -1
    for stage in range(4 if rk4 else 1):
        slope = rk4_stage(model, q, qd, step, dt, stage, plain, q_next, qd_next)
        singular = max(singular, acceleration_into(model, qs, qds, step, slope, chain))
        if singular >= 0 and stage == 0:
            break
    if singular >= 0:
        return -(singular + 1)
    if not rk4:
        velocity_stage(qd, dt, k1, qd_next)
        integrate_into(model, q, qd_next, dt, q_next)
    elif plain:
        rk4_state(q, qd, dt, k1, k2, k3, k4, q_next, qd_next)
    else:
        rkmk4_state(model, q, qd, step, dt, q_next, qd_next)
    return DONE if finite_state(q_next, qd_next) else NON_FINITE


@kernel(inline=True)   # a record of 20 arrays: a call would copy them
def rk4_stage(model, q, qd, step, dt, stage, plain, q_next, qd_next):
    """
    Write the point (qs, qds) of RK4's ``stage`` (0-3) into the workspace; return its slope.

    The slope (k1 .. k4, nv) is the array the stage's accelerations go to.
    Stage 0 is (q, qd) itself. The classical RK4 (``plain``) takes
    (q + h slope_q, qd + h slope_qd) with h = dt/2, dt/2, dt, keeping qd_2 in
    q_next and qd_3 in qd_next (nq = nv), as the rollouts' lanes take them
    (rollout_lanes.group_advance). RKMK4 (body velocities, so the brackets'
    signs are those of q' = q v): v_1 = qd, v_i = qd + h_i a_(i-1) with
    a_i = FD(q_i, v_i) and q_1 = q, q_2 = q (+) dt/2 v_1, q_3 = q (+)
    (dt/2 v_2 + dt^2/8 [v_1, v_2]), q_4 = q (+) dt v_3, keeping v_2 and v_3
    for ``rkmk4_state``.
    """
    k1, k2, k3, k4, qs, qds, v2, v3 = step.workspace[6:]
    h = 0.5 * dt
    if stage == 0:
        copy_into(q, qs)
        copy_into(qd, qds)
        return k1
    if plain:
        if stage == 1:
            stage_state(q, qd, h, qd, k1, qs, qds)
            velocity_stage(qd, h, k1, q_next)   # qd2, kept for the position update
            return k2
        if stage == 2:
            stage_state(q, qd, h, q_next, k2, qs, qds)
            velocity_stage(qd, h, k2, qd_next)  # qd3
            return k3
        stage_state(q, qd, dt, qd_next, k3, qs, qds)
        return k4
    if stage == 1:
        velocity_stage(qd, h, k1, v2)
        integrate_into(model, q, qd, h, qs)
        copy_into(v2, qds)
        return k2
    if stage == 2:
        velocity_stage(qd, h, k2, v3)
        copy_into(v2, qds)
        add_bracket(model, qd, v2, 0.25 * dt, qds)
        integrate_into(model, q, qds, h, qs)
        copy_into(v3, qds)
        return k3
    velocity_stage(qd, dt, k3, qds)   # v4
    integrate_into(model, q, v3, dt, qs)
    return k4


@kernel(inline=True)   # a record of 20 arrays: a call would copy them
def rkmk4_state(model, q, qd, step, dt, q_next, qd_next):
    """
    Write RKMK4's new state from the stages' slopes and velocities (``rk4_stage``).

    q+ = q (+) (dt/6 (v_1 + 2 v_2 + 2 v_3 + v_4) + dt^2/12 [v_1, v_4]) and
    qd+ = qd + dt/6 (a_1 + 2 a_2 + 2 a_3 + a_4), v_4 in qds.
    """
    k1, k2, k3, k4, qs, qds, v2, v3 = step.workspace[6:]
    for i in range(qd.shape[0]):   # the mean velocity, in the order of the plain RK4's sum
        v2[i] = qd[i] + 2.0 * v2[i] + 2.0 * v3[i] + qds[i]
        qd_next[i] = qd[i] + dt / 6.0 * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i])
    add_bracket(model, qd, qds, 0.5 * dt, v2)
    integrate_into(model, q, v2, dt / 6.0, q_next)


@kernel
def copy_into(x, out):
    """Copy the vector x (n,) into out (n,)."""
    for i in range(x.shape[0]):
        out[i] = x[i]


@kernel
def euler_state(q, qd, dt, qdd, q_next, qd_next):
    """Write semi-implicit (symplectic) Euler's step: qd+ = qd + dt qdd, q+ = q + dt qd+."""
    for i in range(q.shape[0]):
        qd_next[i] = qd[i] + dt * qdd[i]
        q_next[i] = q[i] + dt * qd_next[i]


@kernel
def stage_state(q, qd, h, slope_q, slope_qd, qs, qds):
    """Write an RK4 stage's state (qs, qds) = (q + h slope_q, qd + h slope_qd)."""
    for i in range(q.shape[0]):
        qs[i] = q[i] + h * slope_q[i]
        qds[i] = qd[i] + h * slope_qd[i]


@kernel
def velocity_stage(qd, h, qdd, out):
    """Write an RK4 stage's velocity qd + h qdd into ``out``."""
    for i in range(qd.shape[0]):
        out[i] = qd[i] + h * qdd[i]


@kernel
def rk4_state(q, qd, dt, k1, k2, k3, k4, q_next, qd_next):
    """
    Write RK4's new state from the four slopes; q_next, qd_next hold qd2 and qd3 on entry.

    q+ = q + dt/6 (qd + 2 qd2 + 2 qd3 + qd4), qd+ = qd + dt/6 (k1 + 2 k2 + 2 k3 + k4),
    with qd4 = qd + dt k3 (the classical fourth-order Runge-Kutta on x = (q, qd)).
    """
    for i in range(q.shape[0]):
        qd4 = qd[i] + dt * k3[i]
        position = q[i] + dt / 6.0 * (qd[i] + 2.0 * q_next[i] + 2.0 * qd_next[i] + qd4)
        velocity = qd[i] + dt / 6.0 * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i])
        q_next[i], qd_next[i] = position, velocity


@kernel
def finite_state(q, qd):
    """Return True if every entry of the state q (nq,), qd (nv,) is finite."""
    for i in range(q.shape[0]):
        if not np.isfinite(q[i]):
            return False
    for i in range(qd.shape[0]):
        if not np.isfinite(qd[i]):
            return False
    return True


@kernel(inline=True)   # a record of 20 arrays: a call would copy them
def total_energy(model, q, qd, step):
    """Return energy_terms (E, T) (J) at (q, qd) with a Step's rows, on its kinematics work."""
    workspace = step.workspace
    return energy_terms(model, q, qd, step.params, step.limits, workspace[3], workspace[4])


@kernel
def has_input(effort, wrenches):
    """Return True when any effort or wrench entry is nonzero (NaN counts as nonzero)."""
    for k in range(effort.shape[0]):
        if effort[k] != 0.0:
            return True
    for w in range(wrenches.shape[0]):
        for j in range(WRENCH_FORCE, NWRENCH):
            if wrenches[w, j] != 0.0:
                return True
    return False


@kernel(signatures=[STATUS(IN2, OUT1, OUT1, IN1, OUT1, types.int64)])
def simulation_steps(model, q, qd, effort, block, count):
    """
    Advance (q, qd) in place by up to ``count`` steps, with the energy check after each.

    ``block`` (block_size): the simulator's control array (settings and the
    energy check's running state, updated, as is C_TIME), parameter rows
    (NPARAMS, n), applied wrench rows (C_WRENCHES, NWRENCH) and scratch
    space. With an input applied the energy reference is dropped (NaN);
    without one it is taken from the state before the first step, and a step
    whose total energy exceeds reference + tolerance max(1, |reference|)
    (and, failing that, + tolerance max(1, |reference|, largest kinetic
    energy since)) is refused. Return DONE; NON_FINITE or ENERGY_GREW, or
    -(k + 1) for a singular mass matrix at k, with (q, qd) and the time at
    the last good step.
    """
    model, q, qd, effort, block, count = borrowed((model, q, qd, effort, block, count))
    return steps_of(model, q, qd, effort, block, count, None)


@kernel(signatures=[STATUS(IN2, OUT1, OUT1, IN1, OUT1, types.int64)])
def constrained_steps(model, q, qd, effort, block, count):
    """
    Advance a closed chain's (q, qd) in place by up to ``count`` steps, as simulation_steps.

    ``block``: the simulator's block (block_size) followed by the chain's data
    (loop_closures.chain_size: Baumgarte's alpha and beta, tolerances, lock
    sign, passive joints, closures). Each stage solves the KKT system; after
    each step the new configuration's singularity margin
    (ClosedChain.singularity_margin) must be > 0, then the energy check runs.
    Return DONE; NON_FINITE, LOCKED (the step reaches or crosses a singular
    configuration) or ENERGY_GREW, or -(k + 1) when the KKT matrix is
    singular (zero pivot at k), with (q, qd) and the time at the last good step.
    """
    model, q, qd, effort, block, count = borrowed((model, q, qd, effort, block, count))
    n = qd.shape[0]
    start = block_size(n, body_count(model), int(block[C_WRENCHES]))
    return steps_of(model, q, qd, effort, block, count, chain_parts(block, start, n))


@kernel(inline=True)   # one caller per specialisation: compiled (and optimised) once
def steps_of(model, q, qd, effort, block, count, chain):
    """Run simulation_steps (``chain`` None) or constrained_steps (its chain data)."""
    control, params, wrenches, workspace, q_next, qd_next = block_parts(
        block, q.shape[0], qd.shape[0], body_count(model))
    zero_body_forces(workspace)
    forced = has_input(effort, wrenches)
    step = step_of(control, effort, params, wrenches, workspace)
    for _ in range(count):
        status = checked_step(model, q, qd, step, forced, control, q_next, qd_next, chain)
        if status != DONE:
            return status
    return DONE


@kernel
def zero_body_forces(workspace):
    """Zero the body forces of a block's workspace (set per stage only when wrenches apply)."""
    fext = workspace[2]
    for i in range(fext.shape[0]):
        for j in range(6):
            fext[i, j] = 0.0


@kernel(inline=True)   # returns a record of 20 arrays: a call would count each
def step_of(control, effort, params, wrenches, workspace):
    """Return the Step record of a block's parts (block_parts) under ``effort`` (nv,)."""
    return Step(effort, params, wrenches, control[C_LIMITS] != 0.0, control[C_DENSE] != 0.0,
                workspace)


@kernel(inline=True)   # a record of 20 arrays: a call would copy them
def checked_step(model, q, qd, step, forced, control, q_next, qd_next, chain):
    """
    Advance (q, qd) in place by one step of simulation_steps, with its checks; return a status.

    The parts of a block (block_parts) are taken once by the caller, as the
    Step record ``step`` (step_of), with the body forces zeroed
    (zero_body_forces) and ``forced`` = has_input(effort, wrenches): a
    rollout changes the effort every step and calls this per step.
    """
    status = advance(model, q, qd, step, control[C_DT], control[C_RK4] != 0.0, q_next, qd_next,
                     chain)
    if status != DONE:
        return status
    if chain is not None and singular_configuration(model, q_next, qd_next, chain,
                                                    step.workspace[3], step.workspace[4]):
        return LOCKED
    return accepted_step(model, q, qd, step, forced, control, q_next, qd_next)


@kernel(inline=True)   # a record of 20 arrays: a call would copy them
def accepted_step(model, q, qd, step, forced, control, q_next, qd_next):
    """
    Check the energy of the finite new state (q_next, qd_next), then take it; return a status.

    checked_step's last part: with no input (``forced`` False) the step is
    refused (ENERGY_GREW, (q, qd) kept) if its total energy exceeds the
    reference; else (q, qd) = (q_next, qd_next) and the time advances.
    """
    dt, tolerance = control[C_DT], control[C_TOLERANCE]
    if forced:
        control[C_REFERENCE] = np.nan   # measured again once the input stops
    else:
        if np.isnan(control[C_REFERENCE]):
            control[C_REFERENCE], control[C_KINETIC_SCALE] = total_energy(model, q, qd, step)
        energy, kinetic = total_energy(model, q_next, qd_next, step)
        control[C_ENERGY], control[C_KINETIC] = energy, kinetic
        reference = control[C_REFERENCE]
        scale = max(control[C_KINETIC_SCALE], kinetic)
        control[C_KINETIC_SCALE] = scale
        if energy > reference + tolerance * max(1.0, abs(reference)):
            # the potential energy is zero at the root origin, so |E| can be ~0 while
            # the arm swings hard: judge the growth also against the largest kinetic
            # energy seen since the reference was taken (a first-order integrator's
            # error scales with it)
            if energy > reference + tolerance * max(1.0, abs(reference), scale):
                return ENERGY_GREW
        control[C_REFERENCE] = min(reference, energy)
    for i in range(q.shape[0]):
        q[i] = q_next[i]
    for i in range(qd.shape[0]):
        qd[i] = qd_next[i]
    control[C_TIME] += dt
    return DONE


@kernel
def state_copy(out, q, qd, nq, n):
    """Copy the state entry's inputs q (nq,) and qd (n,) into out (nq + n,); return its views."""
    state = carray(out, nq + n)
    q_in, qd_in = state_at(q, nq), state_at(qd, n)
    for i in range(nq):
        state[i] = q_in[i]
    for i in range(n):
        state[nq + i] = qd_in[i]
    return state[:nq], state[nq:]


@state_entry
def simulation_steps_entry(model, rows, n, q, qd, effort, extra, out):
    """
    Run simulation_steps from (q, qd) into out (nq + n,) = (q, qd) (_jit.STATE_ENTRY).

    C pointers; n is nv, q has nq entries. ``extra`` is the simulator's
    block (block_size), read and written, whose control holds C_COUNT, the
    number of steps to take. The inputs are the simulator's validated state
    and effort. Return simulation_steps' status; ``out`` then holds the last
    good state.
    """
    m = model_at(model, rows)
    control = carray(extra, NCONTROL)
    block = carray(extra, block_size(n, rows - 1, int(control[C_WRENCHES])))
    q_out, qd_out = state_copy(out, q, qd, nq_of(m), n)
    return simulation_steps(m, q_out, qd_out, state_at(effort, n), block, int(control[C_COUNT]))


@state_entry
def constrained_steps_entry(model, rows, n, q, qd, effort, extra, out):
    """
    Run constrained_steps from (q, qd) into out (2 n,) = (q, qd) (C pointers, _jit.STATE_ENTRY).

    ``extra`` is the simulator's block followed by the chain's data, as
    simulation_steps_entry's. Return constrained_steps' status.
    """
    m = model_at(model, rows)
    control = carray(extra, NCONTROL)
    start = block_size(n, rows - 1, int(control[C_WRENCHES]))
    header = carray(extra, start + NCLOSURE_HEADER)[start:]
    size = start + chain_size(n, int(header[K_CLOSURES]), int(header[K_ROWS]))
    block = carray(extra, size)
    state = carray(out, 2 * n)   # closed chains: one-dof joints only, nq = n
    q_in, qd_in = state_at(q, n), state_at(qd, n)
    for i in range(n):
        state[i], state[n + i] = q_in[i], qd_in[i]
    return constrained_steps(m, state[:n], state[n:], state_at(effort, n), block,
                             int(control[C_COUNT]))
