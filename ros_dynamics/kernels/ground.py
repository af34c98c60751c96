# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
Ground contact in the simulator's compiled step: velocity-level time stepping, Coulomb friction.

One step of ``dt`` (Stewart and Trinkle, "An implicit time-stepping scheme
for rigid body dynamics with inelastic collisions and Coulomb friction",
IJNME 39, 1996; Anitescu and Potra, Nonlinear Dynamics 14, 1997), with the
exact Coulomb cone instead of their polyhedral one (Moreau-Jean; Acary and
Brogliato, "Numerical Methods for Nonsmooth Dynamical Systems", 2008, ch. 10):

    M (v+ - v) = dt (tau - b(q, v)) + J^T lambda,        q+ = q (+) dt v+

with M by CRBA, b by RNEA (gravity, Coriolis, the applied wrenches), tau the
simulator's joint torques (joint_torques.joint_torques_into), J (3 k, nv) the
rows of the k contact points' velocities in each point's contact frame
(t1, t2, n) (world axes; n the ground's normal), lambda (3 k) their impulses
(N s) and, per point i, with u = J v+ and the gap phi_i = n . p_i - radius_i
- height (m; p_i the point, the sphere's centre):

    w_n = u_n + s_i >= 0,  lambda_n >= 0,  w_n lambda_n = 0     (no penetration)
    |lambda_t| <= mu lambda_n;  u_t = 0 inside, lambda_t = -mu lambda_n u_t / |u_t| on the rim

s_i = phi_i / dt for phi_i >= 0 (a point may approach the plane but not
cross it within the step: an inelastic impact, no bounce), s_i = erp phi_i
/ dt for phi_i < 0 (a penetration left by the linearisation is taken back
by the fraction erp a step, as ODE's error reduction parameter). Energy:
the contact impulses change the kinetic energy by lambda^T u - 1/2 lambda^T
G lambda with lambda_n u_n = -lambda_n s_i = 0 unless the point penetrates,
and lambda_t . u_t <= 0, so contacts remove energy except the erp push-out
of a penetration.

Solved on the Delassus matrix G = J M^-1 J^T = Y^T Y, Y = L^-1 J^T (M = L
L^T, forward substitution only) by projected Gauss-Seidel (Moreau 1988;
Jourdan, Alart and Jean 1998), per point: the normal impulse max(0,
lambda_n - w_n / G_nn), then the tangential one by the local 2 x 2 solve if
it stays inside the disc |lambda_t| <= mu lambda_n, else by a projected
gradient step lambda_t <- proj(lambda_t - w_t / g), g the largest eigenvalue
of G_tt, whose fixed point is exactly the rim condition above. Sweeps stop
when no impulse moves by more than ``tolerance`` times the largest normal
impulse, or after ``iterations``; the previous step's impulses start the
next (warm start). Then v+ = v + L^-T (dt L^-1 (tau - b) + Y lambda): one
back substitution.

``extra`` past the simulator's block (integrators.block_size): the ground
data (``ground_parts``): header (G_*), per point (P_*: body, point in body
coordinates, radius), the impulses (k, 3) in (t1, t2, n), the mean forces
(k, 3) of the last step (world axes, N: lambda / dt), the gaps (k,) at its
start, then scratch.
"""

import math

from numba import carray, types
from ros_dynamics.kernels.cholesky import cholesky_factor
from ros_dynamics.kernels.contact import back_substitute, forward_substitute
from ros_dynamics.kernels.crba import crba_into
from ros_dynamics.kernels.integrators import (accepted_step, block_parts, block_size,
                                              body_forces_into, DONE, finite_state, has_input,
                                              NON_FINITE, state_copy, step_of, zero_body_forces)
from ros_dynamics.kernels.jacobian import jacobian_at_point
from ros_dynamics.kernels.joint_torques import joint_torques_into
from ros_dynamics.kernels.kinematics import world_poses
from ros_dynamics.kernels.manifold import add_transport, integrate_mixed_into, rotate_back
from ros_dynamics.kernels.rnea import rnea_into
from ros_dynamics.multibody.joints import body_count, model_at, nq_of, state_at
from ros_dynamics.multibody.layouts import (C_COUNT, C_DT, C_WRENCHES, G_COUNT, G_ERP,
                                            G_FRICTION, G_HEIGHT, G_ITERATIONS, G_NORMAL, G_SWEEPS,
                                            G_TANGENT1, G_TANGENT2, G_TOLERANCE, G_TOUCHING,
                                            H_TOLERANCE, NCONTROL, NGROUND_HEADER, NPOINT, P_BODY,
                                            P_POINT, P_RADIUS, POSE_P, POSE_R)
from ros_dynamics.multibody.spatial import add, load3, load9, mat_vec
from ros_dynamics.runtime.jit import IN1, IN2, kernel, OUT1, state_entry, STATUS
from ros_dynamics.runtime.views import borrowed


@kernel
def ground_size(n, k):
    """Return the length of the ground data for n = nv velocities and k points."""
    m = 3 * k
    return NGROUND_HEADER + NPOINT * k + 7 * k + n * n + m * n + n * (m + 1) + m * m + m + 6 * n


@kernel
def ground_parts(block, start, n):
    """
    Return views of the ground data at block[start:] (nv = n): see the module doc.

    (header, points (k, NPOINT), impulses (k, 3), forces (k, 3), gaps (k,),
    lower (n, n), jac (3 k, n), y (n, 3 k + 1), delassus (3 k, 3 k), free (3 k),
    jac6 (6, n)).
    """
    k = int(block[start + G_COUNT])
    m = 3 * k
    header = block[start:start + NGROUND_HEADER]
    at = start + NGROUND_HEADER
    points = block[at:at + NPOINT * k].reshape((k, NPOINT))
    at += NPOINT * k
    impulses = block[at:at + m].reshape((k, 3))
    at += m
    forces = block[at:at + m].reshape((k, 3))
    at += m
    gaps = block[at:at + k]
    at += k
    lower = block[at:at + n * n].reshape((n, n))
    at += n * n
    jac = block[at:at + m * n].reshape((m, n))
    at += m * n
    y = block[at:at + n * (m + 1)].reshape((n, m + 1))
    at += n * (m + 1)
    delassus = block[at:at + m * m].reshape((m, m))
    at += m * m
    free = block[at:at + m]
    at += m
    jac6 = block[at:at + 6 * n].reshape((6, n))
    return header, points, impulses, forces, gaps, lower, jac, y, delassus, free, jac6


@kernel
def contact_rows(model, poses, header, points, gaps, jac, jac6):
    """
    Fill J (3 k, nv) in each point's (t1, t2, n) and the gaps (k,) at the poses (module doc).

    The velocity rows of the contact point c = p - radius n (the sphere's
    lowest point), fixed in the point's body.
    """
    normal = (header[G_NORMAL], header[G_NORMAL + 1], header[G_NORMAL + 2])
    for i in range(points.shape[0]):
        body = int(points[i, P_BODY])
        radius = points[i, P_RADIUS]
        p = add(load3(poses, body, POSE_P), mat_vec(load9(poses, body, POSE_R),
                                                    load3(points, i, P_POINT)))
        gaps[i] = (normal[0] * p[0] + normal[1] * p[1] + normal[2] * p[2] - radius
                   - header[G_HEIGHT])
        contact = (p[0] - radius * normal[0], p[1] - radius * normal[1],
                   p[2] - radius * normal[2])
        jacobian_at_point(model, poses, body, contact, jac6)
        for a, axis in enumerate((G_TANGENT1, G_TANGENT2, G_NORMAL)):
            for j in range(jac6.shape[1]):
                jac[3 * i + a, j] = (header[axis] * jac6[0, j] + header[axis + 1] * jac6[1, j]
                                     + header[axis + 2] * jac6[2, j])


@kernel
def gauss_seidel(delassus, free, header, impulses):
    """
    Solve the contact problem (module doc) for the impulses (k, 3), warm-started; return sweeps.

    ``free`` (3 k): u at lambda = 0 plus each normal row's s_i. Non-finite
    starting impulses (those of a step refused for a NaN) start from zero.
    """
    k = impulses.shape[0]
    mu, tolerance = header[G_FRICTION], header[G_TOLERANCE]
    for i in range(k):   # a refused step's (a NaN effort's) impulses start nothing
        if not (math.isfinite(impulses[i, 0]) and math.isfinite(impulses[i, 1])
                and math.isfinite(impulses[i, 2])):
            impulses[i, 0], impulses[i, 1], impulses[i, 2] = 0.0, 0.0, 0.0
    sweeps = int(header[G_ITERATIONS])
    for sweep in range(sweeps):
        change, largest = 0.0, 0.0
        for i in range(k):
            r = 3 * i
            w0, w1, w2 = free[r], free[r + 1], free[r + 2]
            for j in range(k):
                c = 3 * j
                l0, l1, l2 = impulses[j, 0], impulses[j, 1], impulses[j, 2]
                w0 += delassus[r, c] * l0 + delassus[r, c + 1] * l1 + delassus[r, c + 2] * l2
                w1 += (delassus[r + 1, c] * l0 + delassus[r + 1, c + 1] * l1
                       + delassus[r + 1, c + 2] * l2)
                w2 += (delassus[r + 2, c] * l0 + delassus[r + 2, c + 1] * l1
                       + delassus[r + 2, c + 2] * l2)
            gnn = delassus[r + 2, r + 2]
            if not gnn > 0.0:   # the point cannot move along the normal: no impulse
                impulses[i, 0], impulses[i, 1], impulses[i, 2] = 0.0, 0.0, 0.0
                continue
            normal = max(0.0, impulses[i, 2] - w2 / gnn)
            step = normal - impulses[i, 2]
            impulses[i, 2] = normal
            w0 += delassus[r, r + 2] * step
            w1 += delassus[r + 1, r + 2] * step
            limit = mu * normal
            a, b, d = delassus[r, r], delassus[r, r + 1], delassus[r + 1, r + 1]
            det = a * d - b * b
            t0, t1 = impulses[i, 0], impulses[i, 1]
            inside = False
            if det > 1e-12 * (a * d):   # the local 2 x 2 solve: sticking
                s0 = t0 - (d * w0 - b * w1) / det
                s1 = t1 - (a * w1 - b * w0) / det
                inside = s0 * s0 + s1 * s1 <= limit * limit
            if not inside:   # sliding: the projected gradient step onto the disc
                g = 0.5 * (a + d) + math.sqrt(0.25 * (a - d) * (a - d) + b * b)
                s0, s1 = t0, t1
                if g > 0.0:
                    s0, s1 = t0 - w0 / g, t1 - w1 / g
                size = math.sqrt(s0 * s0 + s1 * s1)
                if size > limit:
                    scale = limit / size
                    s0, s1 = s0 * scale, s1 * scale
            change = max(change, max(abs(step), max(abs(s0 - t0), abs(s1 - t1))))
            largest = max(largest, normal)
            impulses[i, 0], impulses[i, 1] = s0, s1
        if change <= tolerance * largest:
            return sweep + 1
    return sweeps


@kernel
def ground_advance(model, q, qd, effort, params, wrenches, limits, dt, workspace, q_next,
                   qd_next, ground):
    """
    Write the state one time step after (q, qd) into (q_next, qd_next); return a status.

    The module doc's step, semi-implicit (v+ first, then q+ = q (+) dt v+);
    ``ground``: ground_parts' views. Return DONE; NON_FINITE; or -(k + 1)
    when the mass matrix's pivot k vanishes. Positional arguments, not the
    integrators.Step record: a call copies a record's arrays (reference counts).
    """
    work, mass, fext, kinematic_work, poses, tau, bias, transport = workspace[:8]
    header, points, impulses, forces, gaps, lower, jac, y, delassus, free, jac6 = ground
    n, m = qd.shape[0], jac.shape[0]
    joint_torques_into(q, qd, effort, params, limits, tau)
    if wrenches.shape[0] > 0:
        body_forces_into(model, q, wrenches, kinematic_work, poses, fext)
    rnea_into(model, q, qd, None, fext, work, bias)
    world_poses(model, work, poses)
    crba_into(model, q, work, lower)
    singular = cholesky_factor(lower, model[body_count(model), H_TOLERANCE])
    if singular >= 0:
        return -(singular + 1)
    contact_rows(model, poses, header, points, gaps, jac, jac6)
    for j in range(n):   # Y = L^-1 [J^T, tau - b]
        for r in range(m):
            y[j, r] = jac[r, j]
        y[j, m] = tau[j] - bias[j]
    forward_substitute(lower, y)
    for j in range(n):
        transport[j] = 0.0
    add_transport(model, qd, dt, transport)
    erp = header[G_ERP]
    for a in range(m):
        value = 0.0
        for j in range(n):
            value += jac[a, j] * (qd[j] + transport[j]) + dt * y[j, a] * y[j, m]
        if a % 3 == 2:
            gap = gaps[a // 3]
            value += gap / dt if gap >= 0.0 else erp * gap / dt
        free[a] = value
        for b in range(a + 1):
            value = 0.0
            for j in range(n):
                value += y[j, a] * y[j, b]
            delassus[a, b] = value
            delassus[b, a] = value
    header[G_SWEEPS] = gauss_seidel(delassus, free, header, impulses)
    touching = 0
    for j in range(n):
        value = dt * y[j, m]
        for i in range(impulses.shape[0]):
            for a in range(3):
                value += y[j, 3 * i + a] * impulses[i, a]
        y[j, m] = value
    back_substitute(lower, y[:, m:])
    for j in range(n):
        qd_next[j] = qd[j] + transport[j] + y[j, m]
    for i in range(impulses.shape[0]):
        touching += impulses[i, 2] > 0.0
        for r in range(3):
            forces[i, r] = (impulses[i, 0] * header[G_TANGENT1 + r]
                            + impulses[i, 1] * header[G_TANGENT2 + r]
                            + impulses[i, 2] * header[G_NORMAL + r]) / dt
    header[G_TOUCHING] = touching
    if integrate_mixed_into(model, q, qd_next, dt, q_next):
        return NON_FINITE
    rotate_back(model, dt, qd_next)
    return DONE if finite_state(q_next, qd_next) else NON_FINITE


@kernel(inline=True)   # takes the Step record: a call would copy its arrays
def ground_checked_step(model, q, qd, step, forced, control, q_next, qd_next, ground):
    """Advance (q, qd) in place by one ground-contact step, with integrators.accepted_step."""
    status = ground_advance(model, q, qd, step.effort, step.params, step.wrenches, step.limits,
                            control[C_DT], step.workspace, q_next, qd_next, ground)
    if status != DONE:
        return status
    return accepted_step(model, q, qd, step, forced, control, q_next, qd_next)


@kernel
def ground_of(block, model, n):
    """Return ground_parts of a simulator block followed by its ground data."""
    return ground_parts(block, block_size(n, body_count(model), int(block[C_WRENCHES])), n)


@kernel(signatures=[STATUS(IN2, OUT1, OUT1, IN1, OUT1, types.int64)])
def ground_steps(model, q, qd, effort, block, count):
    """
    Advance (q, qd) in place by up to ``count`` ground-contact steps, as simulation_steps.

    ``block``: the simulator's block followed by the ground data
    (ground_size). Return DONE, NON_FINITE, ENERGY_GREW (no input and the
    energy grew) or -(k + 1) (singular mass matrix), with (q, qd) and the
    time at the last good step.
    """
    model, q, qd, effort, block, count = borrowed((model, q, qd, effort, block, count))
    control, params, wrenches, workspace, q_next, qd_next = block_parts(
        block, q.shape[0], qd.shape[0], body_count(model))
    ground = ground_of(block, model, qd.shape[0])
    zero_body_forces(workspace)
    forced = has_input(effort, wrenches)
    step = step_of(control, effort, params, wrenches, workspace)
    for _ in range(count):
        status = ground_checked_step(model, q, qd, step, forced, control, q_next, qd_next,
                                     ground)
        if status != DONE:
            return status
    return DONE


@state_entry
def ground_steps_entry(model, rows, n, q, qd, effort, extra, out):
    """
    Run ground_steps from (q, qd) into out (nq + n,) (C pointers, _jit.STATE_ENTRY).

    ``extra``: the simulator's block with its ground data; its control's
    C_COUNT is the number of steps. Return ground_steps' status.
    """
    m = model_at(model, rows)
    control = carray(extra, NCONTROL)
    start = block_size(n, rows - 1, int(control[C_WRENCHES]))
    count = int(carray(extra, start + 1)[start + G_COUNT])
    block = carray(extra, start + ground_size(n, count))
    q_out, qd_out = state_copy(out, q, qd, nq_of(m), n)
    return ground_steps(m, q_out, qd_out, state_at(effort, n), block, int(control[C_COUNT]))
