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

"""ros_dynamics: an ament_python package whose core installs with plain pip too."""

from glob import glob

from setuptools import Extension, find_packages, setup

try:
    import numpy
    NUMPY_INCLUDE = [numpy.get_include()]
except ImportError:   # pragma: no cover - then the optional extension is skipped
    NUMPY_INCLUDE = []

PACKAGE = 'ros_dynamics'
NODES = {
    'bringup': 'ros_dynamics.bringup:main',
    'inverse_dynamics_node': 'ros_dynamics.nodes.inverse_dynamics_node:main',
    'simulator_node': 'ros_dynamics.nodes.simulator_node:main',
    'operational_space_node': 'ros_dynamics.nodes.operational_space_node:main',
    'cartesian_impedance_controller': 'ros_dynamics.nodes.cartesian_impedance_controller:main',
}


setup(
    name=PACKAGE,
    version='0.1.0',
    packages=find_packages(exclude=['test', 'test.*', 'benchmarks', 'examples']),
    # the call path into the compiled kernels (no dynamics in C); optional: without a
    # compiler the package falls back to ctypes, with the same results and slower calls
    ext_modules=[Extension('ros_dynamics._statecall', ['ros_dynamics/_statecall.c'],
                           include_dirs=NUMPY_INCLUDE, optional=True)],
    data_files=[
        ('share/ament_index/resource_index/packages', [f'resource/{PACKAGE}']),
        (f'share/{PACKAGE}', ['package.xml']),
        (f'share/{PACKAGE}/launch', glob('launch/*.launch.py')),
        (f'share/{PACKAGE}/config', glob('config/*.yaml')),
        (f'share/{PACKAGE}/urdf', glob('urdf/*.urdf')),
    ],
    # ranges for pip users; requirements/core.txt pins the versions CI runs
    install_requires=['numpy>=1.26', 'scipy>=1.11', 'numba>=0.60', 'PyYAML>=6.0'],
    # scale-out of batch jobs on Dask (ros_dynamics/scale_out.py)
    extras_require={'scale': ['dask[distributed]>=2024.1']},
    python_requires='>=3.11',
    zip_safe=False,
    maintainer='ros_dynamics maintainers',
    maintainer_email='maintainers@ros-dynamics.org',
    description='Rigid-body dynamics from a URDF, served by ROS 2 nodes.',
    license='Apache-2.0',
    tests_require=['pytest'],
    entry_points={
        'console_scripts': [f'{name} = {target}' for name, target in NODES.items()],
    },
)
