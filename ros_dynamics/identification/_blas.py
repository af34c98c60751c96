# Copyright 2026 The ros_dynamics Authors
#
# Licensed under the Apache License, Version 2.0 (the "License");
# you may not use this file except in compliance with the License.
# You may obtain a copy of the License at
#
#     http://www.apache.org/licenses/LICENSE-2.0
#
# Unless required by applicable law or agreed to in writing, software
# distributed under the License is distributed on an "AS IS" BASIS,
# WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
# See the License for the specific language governing permissions and
# limitations under the License.

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
