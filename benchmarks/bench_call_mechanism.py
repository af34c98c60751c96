# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
Time the two ways Python calls a compiled kernel on the same work, to see if one is enough.

    python benchmarks/bench_call_mechanism.py [--repeats 9]

Today single states go through a numba C callback (cfunc) called by address from the
C extension ``runtime/_statecall.c`` (``StateCall``), and batches through numba's
dispatcher (the batch kernel's declared signature, called from the runtime's thread
pool). One mechanism would mean either the single states through the dispatcher (the
batch kernel on a batch of one, as the state entry itself does inside compiled code),
or the batches through a C callback by address (here: a cfunc wrapping the same batch
kernel, called through ctypes, which releases the GIL as the dispatcher does). Rows,
inverse dynamics of Panda and Talos reduced, CPU time per call (median of repeats):

* single state: StateCall (C extension -> cfunc); the dispatcher on a batch of one
  (what every single call would cost on the dispatcher alone); ctypes -> cfunc (the
  fallback without a C compiler);
* batches of 1, 10 and 1000 states on one thread: the dispatcher; ctypes -> cfunc.

Benchmarks are not tests: nothing here asserts a time.
"""

import argparse
import ctypes
import os
import statistics
import sys
import time

from numba import carray, cfunc, types
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), 'test'))

from robot_data import example_robot_data_dir   # noqa: E402,I100
from ros_dynamics import RobotModel   # noqa: E402
from ros_dynamics.kernels.rnea import inverse_dynamics_batch   # noqa: E402
from ros_dynamics.kernels.rnea import inverse_dynamics_entry   # noqa: E402
from ros_dynamics.multibody.layouts import NCOL   # noqa: E402
from ros_dynamics.runtime.jit import ensure_compiled   # noqa: E402
from ros_dynamics.runtime.views import read_only   # noqa: E402

POINTER = types.CPointer(types.float64)
# (model, rows, count, n, q, qd, qdd, fext, tau): a batch of ``count`` states by address
BATCH_BY_ADDRESS = types.int64(POINTER, types.int64, types.int64, types.int64, POINTER,
                               POINTER, POINTER, POINTER, POINTER)


def inverse_dynamics_by_address(model, rows, count, n, q, qd, qdd, fext, tau):
    """Run the batch kernel behind a C callback (what batches would call on one mechanism)."""
    return inverse_dynamics_batch(read_only(carray(model, (rows, NCOL))),
                                  read_only(carray(q, (count, n))),
                                  read_only(carray(qd, (count, n))),
                                  read_only(carray(qdd, (count, n))),
                                  read_only(carray(fext, (1, rows - 1, 6))),
                                  carray(tau, (count, n)))


def per_call(function, arguments: list, repeats: int) -> float:
    """Return the median over repeats of the CPU time per call (us)."""
    for args in arguments[:10]:
        function(*args)
    samples = []
    for _ in range(repeats):
        start = time.process_time()
        for args in arguments:
            function(*args)
        samples.append((time.process_time() - start) / len(arguments))
    return statistics.median(samples) * 1e6


def main() -> int:
    """Print the table (markdown)."""
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--repeats', type=int, default=9)
    options = parser.parse_args()
    ensure_compiled(inverse_dynamics_batch)   # before numba compiles a function calling it
    callback = cfunc(BATCH_BY_ADDRESS, nogil=True)(inverse_dynamics_by_address)
    by_address = ctypes.CFUNCTYPE(ctypes.c_int64, *([ctypes.c_void_p] + [ctypes.c_int64] * 3
                                                    + [ctypes.c_void_p] * 5))(callback.address)
    print('| robot | call | dispatcher (us) | C callback (us) | ratio |\n|---|---|---|---|---|')
    rng = np.random.default_rng(0)
    for label, path in (('Panda', 'panda_description/urdf/panda.urdf'),
                        ('Talos reduced', 'talos_data/robots/talos_reduced.urdf')):
        robot = RobotModel.from_urdf_file(os.path.join(example_robot_data_dir(), path))
        model, n = robot.packed, robot.nv
        rows = model.shape[0]
        fext = np.zeros((1, rows - 1, 6))
        q, qd, qdd = (rng.uniform(-1, 1, (1000, n)) for _ in range(3))
        singles = [(q[k % 16], qd[k % 16], qdd[k % 16]) for k in range(1000)]
        robot.inverse_dynamics(*singles[0])
        state_call = robot.state_calls.find(inverse_dynamics_entry)
        out = np.empty(n)
        batch_of_one = [tuple(a.reshape(1, n) for a in s) + (out.reshape(1, n),)
                        for s in singles]
        dispatcher = per_call(lambda a, b, c, o: inverse_dynamics_batch(model, a, b, c, fext, o),
                              batch_of_one, options.repeats)
        c_extension = per_call(lambda a, b, c: state_call.into(out, a, b, c), singles,
                               options.repeats)
        print(f'| {label} | single state: StateCall (C extension) | {dispatcher:.3f} | '
              f'{c_extension:.3f} | {dispatcher / c_extension:.2f} |')
        address = per_call(lambda a, b, c, o: by_address(
            model.ctypes.data, rows, 1, n, a.ctypes.data, b.ctypes.data, c.ctypes.data,
            fext.ctypes.data, o.ctypes.data), batch_of_one, options.repeats)
        print(f'| {label} | single state: ctypes by address | {dispatcher:.3f} | '
              f'{address:.3f} | {dispatcher / address:.2f} |')
        for count in (1, 10, 1000):
            tau = np.empty((count, n))
            blocks = [(q[:count], qd[:count], qdd[:count])] * max(1, 1000 // count)
            through_dispatcher = per_call(
                lambda a, b, c: inverse_dynamics_batch(model, a, b, c, fext, tau), blocks,
                options.repeats) / count
            through_address = per_call(lambda a, b, c: by_address(
                model.ctypes.data, rows, count, n, a.ctypes.data, b.ctypes.data,
                c.ctypes.data, fext.ctypes.data, tau.ctypes.data), blocks,
                options.repeats) / count
            print(f'| {label} | batch of {count}, per state | {through_dispatcher:.3f} | '
                  f'{through_address:.3f} | {through_dispatcher / through_address:.2f} |')
    load = os.getloadavg()
    print(f'\nload average {load[0]:.2f}')
    return 0


if __name__ == '__main__':
    sys.exit(main())
