# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
The QP of the contact-consistent inverse dynamics: DAQP, ProxQP, OSQP and Clarabel compared.

solo12 standing (its SRDF's 'standing' pose) on four point feet with friction mu = 0.3
(4-facet pyramids: 16 rows, 6 unknowns once the base rows are eliminated), at rest, with
contact-consistent accelerations pushing the base by 0.5 to 2.5 m/s^2 horizontally and
turning it (0.5 rad/s^2 rms), so that some answers lie inside the pyramids, some on their
edges and some beyond (infeasible: stage 2). Every solver gets the same problem, stage 1
of ros_dynamics/contacts/inverse.py: minimise |z|^2 / 2 subject to a z <= u, built once
per state before timing (``stage_one_problem``), through its Python interface as a user
would call it per control cycle (a new problem each call: the state changes). Printed
per solver: median wall and CPU time per solve (``time.process_time``), the load
average at that moment, the largest constraint violation and the largest distance to
DAQP's solution. Then the full ``contact_inverse_dynamics`` call.
``python benchmarks/bench_contact_qp.py [--states 50] [--repeats 5]``.
"""

import argparse
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), 'test'))

import numpy as np  # noqa: E402
from robot_data import example_urdf  # noqa: E402
from ros_dynamics import RobotModel  # noqa: E402
from ros_dynamics.contacts import Contact  # noqa: E402
from ros_dynamics.contacts.inverse import stage_one_problem  # noqa: E402
from scipy import sparse  # noqa: E402

FEET = ('FL_FOOT', 'FR_FOOT', 'HL_FOOT', 'HR_FOOT')
TOLERANCE = 1e-9
MU = 0.3


def solve_daqp(a, u):
    import daqp
    z, _, flag, _ = daqp.solve(np.eye(a.shape[1]), np.zeros(a.shape[1]), a, u,
                               np.full(a.shape[0], -1e30), primal_tol=1e-10)
    return z if flag >= 1 else None


def solve_proxqp(a, u):
    import proxsuite
    n = a.shape[1]
    qp = proxsuite.proxqp.dense.QP(n, 0, a.shape[0])
    qp.settings.eps_abs = TOLERANCE
    qp.settings.eps_rel = 0.0
    qp.init(np.eye(n), np.zeros(n), None, None, a, np.full(a.shape[0], -1e20), u)
    qp.solve()
    solved = qp.results.info.status == proxsuite.proxqp.QPSolverOutput.PROXQP_SOLVED
    return qp.results.x if solved else None


def solve_osqp(a, u):
    import osqp
    n = a.shape[1]
    solver = osqp.OSQP()
    solver.setup(sparse.eye(n, format='csc'), np.zeros(n), sparse.csc_matrix(a),
                 np.full(a.shape[0], -np.inf), u, verbose=False, eps_abs=TOLERANCE,
                 eps_rel=0.0, polishing=False, max_iter=100000)
    result = solver.solve()
    return result.x if result.info.status == 'solved' else None


def solve_clarabel(a, u):
    import clarabel
    n = a.shape[1]
    settings = clarabel.DefaultSettings()
    settings.verbose = False
    settings.tol_gap_abs = settings.tol_gap_rel = settings.tol_feas = TOLERANCE
    solver = clarabel.DefaultSolver(sparse.eye(n, format='csc'), np.zeros(n),
                                    sparse.csc_matrix(a), u,
                                    [clarabel.NonnegativeConeT(a.shape[0])], settings)
    solution = solver.solve()
    return np.array(solution.x) if str(solution.status) == 'Solved' else None


SOLVERS = {'daqp': solve_daqp, 'proxqp (proxsuite)': solve_proxqp, 'osqp': solve_osqp,
           'clarabel': solve_clarabel}


def problems(robot, count: int, rng) -> list:
    """Return (q, v, qdd, contacts, (a, u)) at ``count`` states of solo12 standing."""
    import pinocchio as pin
    model = pin.buildModelFromUrdf(example_urdf('solo_description/robots/solo12.urdf'),
                                   pin.JointModelFreeFlyer())
    pin.loadReferenceConfigurations(model, example_urdf('solo_description/srdf/solo.srdf'))
    q = model.referenceConfigurations['standing'].copy()
    contacts = [Contact(name, friction=MU) for name in FEET]
    jac = np.vstack([robot.jacobian(q, name)[:3] for name in FEET])
    out = []
    for _ in range(count):
        v = np.zeros(robot.nv)
        angle, size = rng.uniform(0.0, 2.0 * np.pi), rng.uniform(0.5, 2.5)
        base = np.concatenate([size * np.array([np.cos(angle), np.sin(angle), 0.0]),
                               0.5 * rng.standard_normal(3)])
        legs = np.linalg.lstsq(jac[:, 6:], -jac[:, :6] @ base, rcond=None)[0]
        qdd = np.concatenate([base, legs])
        out.append((q, v, qdd, contacts, stage_one_problem(robot, q, v, qdd, contacts)))
    return out


def main() -> int:
    """Print the table."""
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[1])
    parser.add_argument('--states', type=int, default=50)
    parser.add_argument('--repeats', type=int, default=5)
    args = parser.parse_args()
    robot = RobotModel.from_urdf_file(example_urdf('solo_description/robots/solo12.urdf'),
                                      root_joint='floating')
    cases = problems(robot, args.states, np.random.default_rng(0))
    reference = [solve_daqp(a, u) for *_, (a, u) in cases]
    feasible = [z is not None for z in reference]
    active = sum(bool(np.max(a @ z - u) > -1e-9) for z, (*_, (a, u)) in zip(reference, cases)
                 if z is not None)
    print(f'solo12, 4 point feet, mu {MU}: {len(cases)} states, {sum(feasible)} feasible, '
          f'{active} with a pyramid edge active; a {cases[0][4][0].shape}')
    print(f'{"solver":20s} {"wall us":>9s} {"CPU us":>9s} {"load":>5s} {"violation":>10s} '
          f'{"|z - daqp|":>11s}')
    for name, solve in SOLVERS.items():
        for *_, (a, u) in cases[:3]:
            solve(a, u)   # imports, first calls
        walls, cpus = [], []
        for _ in range(args.repeats):
            wall, cpu = time.perf_counter(), time.process_time()
            answers = [solve(a, u) for *_, (a, u) in cases]
            walls.append((time.perf_counter() - wall) / len(cases))
            cpus.append((time.process_time() - cpu) / len(cases))
        violation = max((float(np.max(a @ z - u)) for z, (*_, (a, u)) in zip(answers, cases)
                         if z is not None), default=0.0)
        distance = max((float(np.abs(z - ref).max()) for z, ref in zip(answers, reference)
                        if z is not None and ref is not None), default=0.0)
        missing = sum(z is None for z, ref in zip(answers, reference) if ref is not None)
        print(f'{name:20s} {1e6 * np.median(walls):9.1f} {1e6 * np.median(cpus):9.1f} '
              f'{os.getloadavg()[0]:5.2f} {violation:10.1e} {distance:11.1e}'
              + (f'  ({missing} not solved)' if missing else ''))
    walls, cpus = [], []
    for _ in range(args.repeats):
        wall, cpu = time.perf_counter(), time.process_time()
        for q, v, qdd, contacts, _ in cases:
            robot.contact_inverse_dynamics(q, v, qdd, contacts)
        walls.append((time.perf_counter() - wall) / len(cases))
        cpus.append((time.process_time() - cpu) / len(cases))
    print(f'{"contact_inverse_dynamics (all of it)":36s} wall {1e6 * np.median(walls):.1f} us, '
          f'CPU {1e6 * np.median(cpus):.1f} us, load {os.getloadavg()[0]:.2f}')
    return 0


if __name__ == '__main__':
    sys.exit(main())
