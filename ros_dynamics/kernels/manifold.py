# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
q (+) h v on the configuration manifold, compiled: the one implementation of ``integrate``.

Per joint type (the model's joint rows, ``joints``), the configuration
reached from q by the constant velocity v over the time h (Pinocchio's
``integrate(model, q, h v)``; docs/conventions.md for the coordinates):

- revolute, continuous, prismatic: q_i + h v_i (the plain sum, the same
  floating-point operations as the fixed-base integrators always did);
- spherical, q = (qx, qy, qz, qw), v the angular velocity in the child
  frame: quat(q) exp(h w / 2) (the quaternion of R exp([h w]));
- free-flyer, q = (p, quat), v = (linear, angular) the base twist in the
  base frame: SE(3)'s M exp(h v), i.e. p + R V(h w) h v_lin and
  quat exp(h w / 2), with V(phi) = 1 + (1 - cos t) / t^2 [phi]
  + (t - sin t) / t^3 [phi]^2, t = |phi| (Murray, Li and Sastry, "A
  Mathematical Introduction to Robotic Manipulation", 1994, eq. 2.36;
  Sola, Deray and Atchuthan, "A micro Lie theory for state estimation in
  robotics", 2018, eq. 174);
- planar, q = (x, y, cos theta, sin theta), v = (vx, vy, omega) in the
  moving frame: SE(2)'s exp, (x, y) + R(theta) V2(h omega) h (vx, vy) and
  the angle theta + h omega (Sola et al. 2018, eq. 156).

Every quaternion and (cos, sin) pair is normalised on the way in (a q that
drifted is read as its rotation) and on the way out (renormalised after
each step, so an integrator's rounding never accumulates off the manifold).
``integrate_into`` is what the simulator's integrators call at every stage
(with ``add_bracket``, the commutators of their Lie-group RK4);
``integrate_mixed_into`` moves a free-flyer's or planar joint's origin by h
times its velocity in the parent's axes instead (p + h R v_lin, SO(3) x R^3
as MuJoCo's free joint), for the ground contact's time stepping
(contacts/ground_kernel.py, with ``add_transport`` and ``rotate_back``);
``integrate_batch`` is RobotModel.integrate's entry point.
"""

import math

from ros_dynamics.multibody.joints import (body_count, FREE_FLYER, nq_of, nv_of, PLANAR,
                                           position_index, quaternion_rotation, SPHERICAL,
                                           velocity_index)
from ros_dynamics.multibody.layouts import COL_JOINT_NQ, COL_JTYPE
from ros_dynamics.runtime.jit import IN2, kernel, OUT2, STATUS
from ros_dynamics.runtime.views import borrowed

SMALL_ANGLE = 1e-4   # rad: below it the series of the exp's coefficients


@kernel
def exp_coefficients(t):
    """
    Return (sin(t/2) / t, (1 - cos t) / t^2, (t - sin t) / t^3) for the angle t >= 0 (rad).

    The quaternion of exp([phi]) is (phi sin(t/2) / t, cos(t/2)); the other two
    are V's (module docstring). Taylor series below SMALL_ANGLE (error
    < 1e-17 there).
    """
    if t < SMALL_ANGLE:
        t2 = t * t
        return 0.5 - t2 / 48.0, 0.5 - t2 / 24.0, 1.0 / 6.0 - t2 / 120.0
    return math.sin(0.5 * t) / t, (1.0 - math.cos(t)) / (t * t), (t - math.sin(t)) / (t * t * t)


@kernel
def unit_quaternion(q, k):
    """Return q[k:k + 4] = (x, y, z, w) scaled to unit length, and False; (.., True) if zero."""
    x, y, z, w = q[k], q[k + 1], q[k + 2], q[k + 3]
    norm = math.sqrt(x * x + y * y + z * z + w * w)
    if not norm > 0.0:
        return (x, y, z, w), True
    return (x / norm, y / norm, z / norm, w / norm), False


@kernel
def rotated_quaternion(quaternion, phi, s):
    """
    Return quaternion (x) (phi s, cos(t/2)), normalised: the rotation R exp([phi]).

    ``s`` = sin(t/2) / t (exp_coefficients), t = |phi| (rad); Hamilton's
    product, w last.
    """
    x, y, z, w = quaternion
    ax, ay, az = phi[0] * s, phi[1] * s, phi[2] * s
    aw = math.cos(0.5 * math.sqrt(phi[0] * phi[0] + phi[1] * phi[1] + phi[2] * phi[2]))
    rx = w * ax + x * aw + y * az - z * ay
    ry = w * ay - x * az + y * aw + z * ax
    rz = w * az + x * ay - y * ax + z * aw
    rw = w * aw - x * ax - y * ay - z * az
    norm = math.sqrt(rx * rx + ry * ry + rz * rz + rw * rw)
    return rx / norm, ry / norm, rz / norm, rw / norm


@kernel
def exp_translation(phi, u, a, b):
    """Return V(phi) u = u + a phi x u + b phi x (phi x u) (the module docstring's V)."""
    cx = phi[1] * u[2] - phi[2] * u[1]
    cy = phi[2] * u[0] - phi[0] * u[2]
    cz = phi[0] * u[1] - phi[1] * u[0]
    dx = phi[1] * cz - phi[2] * cy
    dy = phi[2] * cx - phi[0] * cz
    dz = phi[0] * cy - phi[1] * cx
    return u[0] + a * cx + b * dx, u[1] + a * cy + b * dy, u[2] + a * cz + b * dz


@kernel
def integrate_into(model, q, v, h, out):
    """
    Write q (+) h v into ``out`` (nq,): q (nq,) moved by the velocity v (nv,) for h seconds.

    integrate_on with the joints' own exponentials (the module docstring's).
    """
    return integrate_on(model, q, v, h, out, False)


@kernel
def integrate_mixed_into(model, q, v, h, out):
    """
    Write q moved by v for h into ``out``, free-flyer and planar origins by h R v_lin.

    integrate_on with ``mixed``: a free-flyer's origin p + h R v_lin
    (R its rotation at q), its quaternion as integrate_into's; a planar
    joint's (x, y) + h R(theta) (vx, vy), its angle theta + h omega. The
    origin's displacement is then linear in v, as a velocity-level contact
    constraint assumes (contacts/ground_kernel.py).
    """
    return integrate_on(model, q, v, h, out, True)


@kernel
def integrate_on(model, q, v, h, out, mixed):
    """
    Write q moved by v for h seconds into ``out``; ``mixed``: integrate_mixed_into's origins.

    Return True if a quaternion or planar (cos, sin) of q is zero (``out``
    is then not fully written). ``out`` may be ``q`` itself. Units: h in s,
    v in rad/s and m/s as q's coordinates are in rad and m. A model of
    one-dof joints (nq = nv: q and v share their indices) takes the plain
    loop over coordinates, as the integrators did before floating bases.
    """
    nq = nq_of(model)
    if nq == nv_of(model):
        for k in range(nq):
            out[k] = q[k] + h * v[k]
        return False
    for i in range(body_count(model)):
        if model[i, COL_JOINT_NQ] == 0.0:   # a mimic follower owns no coordinate
            continue
        jtype = model[i, COL_JTYPE]
        k, m = position_index(model, i), velocity_index(model, i)
        if jtype == FREE_FLYER or jtype == SPHERICAL:
            start = k + 3 if jtype == FREE_FLYER else k
            angular = m + 3 if jtype == FREE_FLYER else m
            quaternion, zero = unit_quaternion(q, start)
            if zero:
                return True
            phi = (h * v[angular], h * v[angular + 1], h * v[angular + 2])
            t = math.sqrt(phi[0] * phi[0] + phi[1] * phi[1] + phi[2] * phi[2])
            s, a, b = exp_coefficients(t)
            if jtype == FREE_FLYER:
                rot = quaternion_rotation(quaternion[0], quaternion[1], quaternion[2],
                                          quaternion[3])
                local = (h * v[m], h * v[m + 1], h * v[m + 2])
                if not mixed:
                    local = exp_translation(phi, local, a, b)
                for r in range(3):
                    out[k + r] = q[k + r] + (rot[3 * r] * local[0] + rot[3 * r + 1] * local[1]
                                             + rot[3 * r + 2] * local[2])
            turned = rotated_quaternion(quaternion, phi, s)
            for r in range(4):
                out[start + r] = turned[r]
        elif jtype == PLANAR:
            c, s = q[k + 2], q[k + 3]
            norm = math.sqrt(c * c + s * s)
            if not norm > 0.0:
                return True
            c, s = c / norm, s / norm
            angle = h * v[m + 2]
            _, a, b = exp_coefficients(abs(angle))
            local = (h * v[m], h * v[m + 1], 0.0)
            if not mixed:
                local = exp_translation((0.0, 0.0, angle), local, a, b)
            out[k] = q[k] + c * local[0] - s * local[1]
            out[k + 1] = q[k + 1] + s * local[0] + c * local[1]
            ca, sa = math.cos(angle), math.sin(angle)
            c, s = c * ca - s * sa, s * ca + c * sa
            norm = math.sqrt(c * c + s * s)
            out[k + 2], out[k + 3] = c / norm, s / norm
        else:   # one-dof joints: the plain sum
            out[k] = q[k] + h * v[m]
    return False


@kernel
def add_bracket(model, a, b, c, out):
    """
    Add c [a, b] to ``out`` (nv,): the Lie bracket of two velocities on each multi-dof joint.

    [a, b] is the matrix commutator of the joints' hat matrices, in the
    joint's body-frame coordinates: spherical w_a x w_b; free-flyer
    (linear, angular) (w_a x v_b - w_b x v_a, w_a x w_b); planar
    (vx, vy, omega) (omega_a J v_b - omega_b J v_a, 0) with J (x, y) =
    (-y, x). Nothing is added for one-dof joints (their algebra commutes).
    The commutators of Munthe-Kaas's fourth-order Runge-Kutta
    (integrators.advance).
    """
    if nq_of(model) == nv_of(model):   # one-dof joints only
        return
    for i in range(body_count(model)):
        jtype = model[i, COL_JTYPE]
        if model[i, COL_JOINT_NQ] == 0.0 or not (jtype == FREE_FLYER or jtype == SPHERICAL
                                                 or jtype == PLANAR):
            continue
        m = velocity_index(model, i)
        if jtype == PLANAR:
            wa, wb = a[m + 2], b[m + 2]
            out[m] += c * (-wa * b[m + 1] + wb * a[m + 1])
            out[m + 1] += c * (wa * b[m] - wb * a[m])
            continue
        angular = m + 3 if jtype == FREE_FLYER else m
        wa = (a[angular], a[angular + 1], a[angular + 2])
        wb = (b[angular], b[angular + 1], b[angular + 2])
        if jtype == FREE_FLYER:
            for r in range(3):
                s, t = (r + 1) % 3, (r + 2) % 3
                out[m + r] += c * (wa[s] * b[m + t] - wa[t] * b[m + s]
                                   - wb[s] * a[m + t] + wb[t] * a[m + s])
        for r in range(3):
            s, t = (r + 1) % 3, (r + 2) % 3
            out[angular + r] += c * (wa[s] * wb[t] - wa[t] * wb[s])


@kernel(signatures=[STATUS(IN2, IN2, IN2, OUT2)])
def integrate_batch(model, q, v, out):
    """
    Write q[s] (+) v[s] (unit time) into out[s] for every state s: q, out (N, nq), v (N, nv).

    Return 0; 1 if an entry of q or v is not finite or a quaternion or
    planar (cos, sin) of q is zero (the rows from there on are not written).
    """
    model, q, v, out = borrowed((model, q, v, out))
    nq, nv = nq_of(model), nv_of(model)
    for s in range(q.shape[0]):
        for k in range(nq):
            if not math.isfinite(q[s, k]):
                return 1
        for k in range(nv):
            if not math.isfinite(v[s, k]):
                return 1
        if integrate_into(model, q[s], v[s], 1.0, out[s]):
            return 1
    return 0


@kernel
def add_transport(model, v, h, out):
    """
    Add h w x v_lin to each free-flyer's linear velocity in ``out`` (nv,), planar joints alike.

    v (nv,): body velocities (free-flyer (v_lin, w), planar (vx, vy,
    omega)). v_lin's body-frame derivative plus w x v_lin is the classical
    acceleration of the joint's origin in its own axes: with this term a step
    dv of a velocity in the frame at q moves the origin's velocity in world
    axes by R dv (ground_kernel's time stepping, then ``rotate_back``).
    """
    if nq_of(model) == nv_of(model):
        return
    for i in range(body_count(model)):
        jtype = model[i, COL_JTYPE]
        if model[i, COL_JOINT_NQ] == 0.0:
            continue
        m = velocity_index(model, i)
        if jtype == FREE_FLYER:
            w0, w1, w2 = v[m + 3], v[m + 4], v[m + 5]
            out[m] += h * (w1 * v[m + 2] - w2 * v[m + 1])
            out[m + 1] += h * (w2 * v[m] - w0 * v[m + 2])
            out[m + 2] += h * (w0 * v[m + 1] - w1 * v[m])
        elif jtype == PLANAR:
            out[m] -= h * v[m + 2] * v[m + 1]
            out[m + 1] += h * v[m + 2] * v[m]


@kernel
def rotate_back(model, h, v):
    """
    Re-express each free-flyer's (planar joint's) linear velocity in its frame after the step.

    In place: v_lin <- exp(-h [w]) v_lin (Rodrigues' formula), w the joint's
    angular velocity in ``v`` (the one integrate_mixed_into turned the frame
    by); planar (vx, vy) turned by -h omega. A rotation: |v_lin| is kept.
    """
    if nq_of(model) == nv_of(model):
        return
    for i in range(body_count(model)):
        jtype = model[i, COL_JTYPE]
        if model[i, COL_JOINT_NQ] == 0.0:
            continue
        m = velocity_index(model, i)
        if jtype == FREE_FLYER:
            phi = (-h * v[m + 3], -h * v[m + 4], -h * v[m + 5])
            t = math.sqrt(phi[0] * phi[0] + phi[1] * phi[1] + phi[2] * phi[2])
            _, a, b = exp_coefficients(t)
            # exp([phi]) u = u + sin t / t phi x u + (1 - cos t) / t^2 phi x (phi x u)
            s = 1.0 - b * t * t   # sin t / t = 1 - (t - sin t) / t
            turned = exp_translation(phi, (v[m], v[m + 1], v[m + 2]), s, a)
            v[m], v[m + 1], v[m + 2] = turned
        elif jtype == PLANAR:
            angle = -h * v[m + 2]
            c, s = math.cos(angle), math.sin(angle)
            v[m], v[m + 1] = c * v[m] - s * v[m + 1], s * v[m] + c * v[m + 1]
