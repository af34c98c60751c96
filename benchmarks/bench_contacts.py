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
A breakdown of our solo12 call into its public RobotModel calls shows where the time goes.
``python benchmarks/bench_contacts.py [--calls 500] [--repeats 7]``.
"""

import argparse
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), 'test'))

import numpy as np  # noqa: E402
import pinocchio as pin  # noqa: E402
from robot_data import example_urdf  # noqa: E402
from ros_dynamics import RobotModel  # noqa: E402
from ros_dynamics.contacts import Contact  # noqa: E402

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
        if kind == 'point':
            parts = {'mass_matrix': lambda: robot.mass_matrix(q),
                     'bias_torques': lambda: robot.bias_torques(q, v),
                     '4 x jacobian': lambda: [robot.jacobian(q, f) for f in feet],
                     '4 x jacobian_dot_qd': lambda: [robot.jacobian_dot_qd(q, v, f)
                                                     for f in feet]}
            for name, part in parts.items():
                part()
                line(f'  of which {name}', np.median([timed(part, args.calls)
                                                      for _ in range(args.repeats)], axis=0))
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
