# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
Contacts: constrained forward dynamics against Pinocchio's, and the contact inverse dynamics.

Per call through the public Python API, on the same random states in the same run:
``robot.constrained_forward_dynamics`` against ``pin.constraintDynamics`` (contact models
built once, Baumgarte gains zero) for solo12 on four point feet (CONTACT_3D) and TALOS
reduced on both soles (CONTACT_6D); then ``robot.contact_inverse_dynamics`` on solo12
standing on four feet with friction (mu 0.7, stage 1: the QP) and without limits
(bilateral: the least-norm forces), and a batch of constrained forward dynamics. Medians
over ``--repeats`` runs of ``--calls`` calls, ours and Pinocchio's alternating; CPU time
(``time.process_time``) next to wall time and the 1-minute load average at that moment.
The breakdown of our call (``--parts``, both robots) times the kernel's parts in compiled
loops: RNEA (its forward pass), the contact rows from that pass, CRBA on its transforms, the
L^T D L factorization of M (with a copy of M), the rest of the kernel (the Schur complement:
W, G, its Cholesky, the solves, and the allocations) as the whole kernel minus those, the
entry point (StateCall and the state checks) and the Python path (the public call minus the
StateCall's); then Pinocchio's ``crba`` and ``nonLinearEffects`` as Python calls and a trivial
Python call of Pinocchio's (its call overhead).
``python benchmarks/bench_contacts.py [--calls 500] [--repeats 7] [--parts]``.
"""

import argparse
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), 'test'))

import numba  # noqa: E402
import numpy as np  # noqa: E402
import pinocchio as pin  # noqa: E402
from robot_data import example_urdf  # noqa: E402
from ros_dynamics import RobotModel  # noqa: E402
from ros_dynamics.contacts import Contact  # noqa: E402
from ros_dynamics.contacts.forward import compiled_call  # noqa: E402
from ros_dynamics.kernels import contact as kernel  # noqa: E402
from ros_dynamics.kernels.crba import crba_from_transforms  # noqa: E402
from ros_dynamics.kernels.kinematics import world_poses  # noqa: E402
from ros_dynamics.kernels.ltdl import ltdl_into, velocity_parents  # noqa: E402
from ros_dynamics.kernels.rnea import rnea_into  # noqa: E402
from ros_dynamics.multibody.joints import gravity_of  # noqa: E402
from ros_dynamics.multibody.layouts import NKINEMATICS, NPOSE  # noqa: E402

PARTS = ('RNEA', 'contact rows', 'CRBA', 'L^T D L', 'whole kernel')

CASES = (('solo12, 4 x CONTACT_3D', 'solo_description/robots/solo12.urdf',
          ('FL_FOOT', 'FR_FOOT', 'HL_FOOT', 'HR_FOOT'), 'point'),
         ('talos_reduced, 2 x CONTACT_6D', 'talos_data/robots/talos_reduced.urdf',
          ('left_sole_link', 'right_sole_link'), '6d'))


def timed(function, calls: int) -> tuple:
    """Return (wall, CPU) seconds per call of ``calls`` calls of ``function``."""
    wall, cpu = time.perf_counter(), time.process_time()
    for _ in range(calls):
        function()
    return (time.perf_counter() - wall) / calls, (time.process_time() - cpu) / calls


def compare(ours, theirs, calls: int, repeats: int) -> tuple:
    """Return the medians (wall, CPU) of ours and of theirs, alternating run by run."""
    ours(), theirs()
    mine, other = [], []
    for _ in range(repeats):
        mine.append(timed(ours, calls))
        other.append(timed(theirs, calls))
    return np.median(mine, axis=0), np.median(other, axis=0)


@numba.njit(cache=False)
def part_loop(which, calls, model, q, qd, tau, contacts, count):
    """Run part ``which`` of PARTS ``calls`` times on one state (a compiled loop, no Python)."""
    nb, n = kernel.body_count(model), qd.shape[0]
    m = kernel.rows_of(contacts, count)
    work, poses = np.empty((nb, NKINEMATICS)), np.empty((nb, NPOSE))
    bias, mass, factor = np.empty(n), np.empty((n, n)), np.empty((n, n))
    jac, gamma = np.empty((m, n)), np.empty(m)
    parents, out = np.empty(n, np.int64), np.empty(n + m)
    g = gravity_of(model)
    rnea_into(model, q, qd, None, None, work, bias)
    crba_from_transforms(model, work, mass)
    total = 0.0
    for _ in range(calls):
        if which == 0:
            rnea_into(model, q, qd, None, None, work, bias)
            total += bias[0]
        elif which == 1:
            world_poses(model, work, poses)
            kernel.rows_from_pass(model, work, poses, qd, contacts, count,
                                  (-g[0], -g[1], -g[2]), jac, gamma)
            total += gamma[0]
        elif which == 2:
            crba_from_transforms(model, work, factor)
            total += factor[0, 0]
        elif which == 3:
            factor[:, :] = mass
            velocity_parents(model, parents)
            ltdl_into(factor, parents)
            total += factor[0, 0]
        else:
            total += kernel.constrained_dynamics(model, q, qd, tau, contacts, count, out)
    return total


def parts(robot, contacts, q, v, tau, public, calls: int, repeats: int, pinocchio) -> None:
    """Print where the time of one public call goes (module doc), CPU medians, and pin's parts."""
    call = compiled_call(robot, contacts)
    extra = [float(len(contacts))]
    for contact in contacts:   # the packed contacts, as compiled_call binds them
        body, offset = robot.link_attachment(contact.frame)
        extra += [contact.size, body, *(offset[:3, :3] @ contact.position + offset[:3, 3])]
    extra = np.array(extra[1:])
    cpu = {}
    for which, name in enumerate(PARTS):
        part_loop(which, 2, robot.packed, q, v, tau, extra, len(contacts))
        samples = []
        for _ in range(repeats):
            start = time.process_time()
            part_loop(which, calls, robot.packed, q, v, tau, extra, len(contacts))
            samples.append((time.process_time() - start) / calls)
        cpu[name] = float(np.median(samples))
    cpu['StateCall'] = np.median([timed(lambda: call(q, v, tau), calls)
                                  for _ in range(repeats)], axis=0)[1]
    cpu['public'] = np.median([timed(public, calls) for _ in range(repeats)], axis=0)[1]
    rest = cpu['whole kernel'] - sum(cpu[name] for name in PARTS[:4])
    for name, value in (('RNEA', cpu['RNEA']), ('contact rows', cpu['contact rows']),
                        ('CRBA', cpu['CRBA']), ('L^T D L (and a copy of M)', cpu['L^T D L']),
                        ('W, G, Cholesky of G, solves, allocations', rest),
                        ('entry point (StateCall, state checks)',
                         cpu['StateCall'] - cpu['whole kernel']),
                        ('Python path', cpu['public'] - cpu['StateCall'])):
        print(f'  of which {name:42s} CPU {1e6 * value:5.2f} us', flush=True)
    model, data = pinocchio
    for name, part in (('pin.crba', lambda: pin.crba(model, data, q)),
                       ('pin.nonLinearEffects', lambda: pin.nonLinearEffects(model, data, q, v)),
                       ('pin.Model.getFrameId (a trivial call)',
                        lambda: model.getFrameId('universe'))):
        value = np.median([timed(part, calls) for _ in range(repeats)], axis=0)[1]
        print(f'  Pinocchio alone: {name:35s} CPU {1e6 * value:5.2f} us', flush=True)


def line(name: str, ours, theirs=None) -> None:
    text = f'{name:44s} ours wall {1e6 * ours[0]:7.1f} us CPU {1e6 * ours[1]:7.1f} us'
    if theirs is not None:
        text += (f' | pin wall {1e6 * theirs[0]:6.1f} us CPU {1e6 * theirs[1]:6.1f} us'
                 f' | CPU ratio {ours[1] / theirs[1]:4.2f}')
    print(text + f' | load {os.getloadavg()[0]:.2f}', flush=True)


def main() -> int:
    """Print the tables."""
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[1])
    parser.add_argument('--calls', type=int, default=500)
    parser.add_argument('--repeats', type=int, default=7)
    parser.add_argument('--parts', action='store_true',
                        help="where the time goes: the kernel's parts (compiles a loop, ~20 s)")
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    for title, relative, feet, kind in CASES:
        path = example_urdf(relative)
        robot = RobotModel.from_urdf_file(path, root_joint='floating')
        model = pin.buildModelFromUrdf(path, pin.JointModelFreeFlyer())
        data = model.createData()
        models = []
        for name in feet:
            frame = model.frames[model.getFrameId(name)]
            models.append(pin.RigidConstraintModel(
                pin.ContactType.CONTACT_3D if kind == 'point' else pin.ContactType.CONTACT_6D,
                model, frame.parentJoint, frame.placement, pin.LOCAL_WORLD_ALIGNED))
        models = pin.StdVec_RigidConstraintModel(models)
        datas = pin.StdVec_RigidConstraintData([m.createData() for m in models])
        pin.initConstraintDynamics(model, data, models, datas)
        q = pin.randomConfiguration(model, -np.ones(model.nq), np.ones(model.nq))
        v, tau = rng.standard_normal(model.nv), rng.standard_normal(model.nv)
        contacts = [Contact(name, kind) for name in feet]
        ours, theirs = compare(
            lambda: robot.constrained_forward_dynamics(q, v, tau, contacts),
            lambda: pin.constraintDynamics(model, data, q, v, tau, models, datas),
            args.calls, args.repeats)
        line(f'constrained FD, {title}', ours, theirs)
        if args.parts:
            parts(robot, contacts, q, v, tau,
                  lambda: robot.constrained_forward_dynamics(q, v, tau, contacts),
                  args.calls * 10, args.repeats, (model, data))
        if kind == 'point':
            count = 200
            qs = np.tile(q, (count, 1))
            vs = rng.standard_normal((count, model.nv))
            taus = rng.standard_normal((count, model.nv))
            robot.constrained_forward_dynamics(qs, vs, taus, contacts)
            batch = np.median([timed(lambda: robot.constrained_forward_dynamics(
                qs, vs, taus, contacts), 1) for _ in range(args.repeats)], axis=0) / count
            line(f'constrained FD batch of {count}, per state', batch)
    path = example_urdf('solo_description/robots/solo12.urdf')
    robot = RobotModel.from_urdf_file(path, root_joint='floating')
    model = pin.buildModelFromUrdf(path, pin.JointModelFreeFlyer())
    pin.loadReferenceConfigurations(model, example_urdf('solo_description/srdf/solo.srdf'))
    q = model.referenceConfigurations['standing'].copy()
    v, qdd = np.zeros(robot.nv), np.zeros(robot.nv)
    feet = CASES[0][2]
    for name, contacts in (('friction 0.7 (QP)', [Contact(f, friction=0.7) for f in feet]),
                           ('bilateral (least norm)', [Contact(f, bilateral=True)
                                                       for f in feet])):
        robot.contact_inverse_dynamics(q, v, qdd, contacts)
        line(f'contact ID, solo12 standing, {name}', np.median(
            [timed(lambda: robot.contact_inverse_dynamics(q, v, qdd, contacts), args.calls)
             for _ in range(args.repeats)], axis=0))
    return 0


if __name__ == '__main__':
    sys.exit(main())
