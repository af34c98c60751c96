# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""One BLAS thread for the small dense algebra of identification."""

import contextlib


def single_threaded_blas():
    """
    Return a context in which BLAS / LAPACK run on one thread (threadpoolctl), if installed.

    The matrices of identification are small (hundreds of rows, tens of
    columns); OpenBLAS's threads cost more than they gain there, and on a
    machine whose cores are busy an SVD of 700 x 91 measured 0.9 s threaded
    against 7 ms on one thread. Without threadpoolctl the context does nothing.
    """
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:   # optional: the results are the same, only slower on busy machines
        return contextlib.nullcontext()
    return threadpool_limits(1, user_api='blas')
