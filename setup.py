# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
ros_dynamics for pip: the ROS-free core and the ``ros-dynamics`` command.

colcon builds the ROS package from CMakeLists.txt (interfaces, nodes, launch
files); ``pip install .`` installs the same Python package without the
generated ``ros_dynamics.msg`` / ``ros_dynamics.srv``, which only the nodes use.
"""

from setuptools import Extension, find_packages, setup

try:
    import numpy
    NUMPY_INCLUDE = [numpy.get_include()]
except ImportError:   # pragma: no cover - then the optional extension is skipped
    NUMPY_INCLUDE = []

PACKAGE = 'ros_dynamics'
# the command line for offline jobs (ROS-free), on PATH after pip install;
# CMakeLists.txt installs the same for colcon
COMMANDS = {'ros-dynamics': 'ros_dynamics.cli:main'}


setup(
    name=PACKAGE,
    version='0.1.0',
    packages=find_packages(exclude=['test', 'test.*', 'benchmarks', 'examples']),
    # the call path into the compiled kernels (no dynamics in C); optional: without a
    # compiler the package falls back to ctypes, with the same results and slower calls
    ext_modules=[Extension('ros_dynamics.runtime._statecall',
                           ['ros_dynamics/runtime/_statecall.c'],
                           include_dirs=NUMPY_INCLUDE, optional=True)],
    # ranges for pip users; requirements/core.txt pins the versions CI runs
    # tqdm: the progress bars of the ros-dynamics command, which plain pip installs too
    # numba to the minor version CI runs: runtime/jit.py and runtime/lanes.py use numba internals
    install_requires=['numpy>=1.26', 'scipy>=1.11', 'numba>=0.68,<0.69', 'PyYAML>=6.0',
                      'tqdm>=4.66'],
    extras_require={
        'plot': ['matplotlib>=3.8'],   # ros-dynamics ... --plot
        # ros_dynamics.identification: consistent identification (SDP), ROS 2 bags, one BLAS
        # thread
        'identification': ['cvxpy>=1.5', 'clarabel>=0.9', 'rosbags>=0.10', 'threadpoolctl>=3.1'],
        'scale': ['dask[distributed]>=2024.1'],   # ros_dynamics/rollouts/scale_out.py
        # ros_dynamics.contacts: the QP of the inverse dynamics with friction cones (DAQP,
        # chosen by benchmarks/bench_contact_qp.py)
        'contacts': ['daqp>=0.7'],
    },
    python_requires='>=3.11',
    zip_safe=False,
    maintainer='ros_dynamics maintainers',
    maintainer_email='maintainers@ros-dynamics.org',
    description='Rigid-body dynamics from a URDF, served by ROS 2 nodes.',
    license='Apache-2.0',
    tests_require=['pytest'],
    entry_points={
        'console_scripts': [f'{name} = {target}' for name, target in COMMANDS.items()],
    },
)
