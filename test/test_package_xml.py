# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
package.xml declares exactly what the code imports (what rosdep installs).

Every ``import`` / ``from`` in ros_dynamics/ (core and nodes), launch/ and
the command line is parsed; each ROS package imported must be a ``depend`` or
``exec_depend``, each third-party Python module its rosdep key (numba, which
rosdep cannot provide in a recent enough version, is documented instead), and
no run dependency may be declared that nothing uses. The interface
definitions' packages are the rosidl DEPENDENCIES of CMakeLists.txt, and the
ROS packages have pinned Kilted wheels in requirements/ros.txt where PyPI has
them.
"""

import ast
import os
import re
import sys
import xml.etree.ElementTree as ElementTree

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# rosdep keys of the third-party Python modules the package imports
PYTHON_KEYS = {'numpy': 'python3-numpy', 'scipy': 'python3-scipy', 'yaml': 'python3-yaml',
               'tqdm': 'python3-tqdm'}
# the pip extras (setup.py extras_require: identification, scale, plot, contacts), imported
# inside the functions that need them only, so the nodes and the core run without them
OPTIONAL_EXTRAS = {'cvxpy', 'rosbags', 'threadpoolctl', 'distributed', 'dask', 'matplotlib',
                   'daqp'}
# installed with pip, documented in package.xml (Debian's python3-numba is older than setup.py's
# lower bound)
PIP_ONLY = {'numba', 'llvmlite'}
# ROS Python packages without a Kilted wheel on PyPI (see the comment in requirements/ros.txt)
ROS_WITHOUT_WHEELS = {'launch', 'launch_ros'}
# run dependencies that no import names: the generated interfaces' runtime
RUNTIME_ONLY = {'rosidl_default_runtime'}


def manifest() -> ElementTree.Element:
    return ElementTree.parse(os.path.join(ROOT, 'package.xml')).getroot()


def declared(root: ElementTree.Element, *tags: str) -> set:
    return {element.text.strip() for tag in tags for element in root.findall(tag)}


def python_files() -> list:
    out = []
    for directory in ('ros_dynamics', 'launch'):
        for base, _, files in os.walk(os.path.join(ROOT, directory)):
            out += [os.path.join(base, f) for f in files if f.endswith('.py')]
    return out


def imported_modules() -> dict:
    """Return {top-level module: [files importing it]} of every absolute import."""
    modules = {}
    for path in python_files():
        with open(path, encoding='utf-8') as stream:
            tree = ast.parse(stream.read(), path)
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                names = [node.module]
            else:
                continue
            for name in names:
                modules.setdefault(name.split('.')[0], []).append(os.path.relpath(path, ROOT))
    return modules


def ament_packages() -> set:
    """Return the packages of the ament index under AMENT_PREFIX_PATH (the venv's wheels)."""
    out = set()
    for prefix in filter(None, os.environ.get('AMENT_PREFIX_PATH', '').split(os.pathsep)):
        index = os.path.join(prefix, 'share', 'ament_index', 'resource_index', 'packages')
        if os.path.isdir(index):
            out.update(os.listdir(index))
    return out


def third_party_imports() -> dict:
    modules = imported_modules()
    return {name: files for name, files in modules.items()
            if name not in sys.stdlib_module_names and name != 'ros_dynamics'}


def ros_imports() -> set:
    known = ament_packages() | ROS_WITHOUT_WHEELS
    return {name for name in third_party_imports() if name in known}


def interface_dependencies() -> set:
    """Return the packages the .msg/.srv files name (``pkg/Type``)."""
    out = set()
    for kind in ('msg', 'srv'):
        directory = os.path.join(ROOT, kind)
        for name in os.listdir(directory):
            with open(os.path.join(directory, name), encoding='utf-8') as stream:
                for line in stream:
                    match = re.match(r'\s*([a-z][a-z0-9_]*)/[A-Z]\w*', line.split('#')[0])
                    if match:
                        out.add(match.group(1))
    return out


def test_the_scan_sees_the_imports_it_must():
    imports = third_party_imports()
    assert {'rclpy', 'launch', 'launch_ros', 'ament_index_python', 'rcl_interfaces',
            'numpy', 'numba'} <= set(imports)
    assert 'ros_dynamics/nodes/common.py' in imports['rclpy']


def test_every_import_is_declared():
    root = manifest()
    run = declared(root, 'depend', 'exec_depend')
    imports = third_party_imports()
    ros = ros_imports()
    for name in sorted(ros):
        assert name in run, f'{name} (imported by {imports[name][0]}) is not a run dependency'
    for name, files in sorted(imports.items()):
        if name in ros:
            continue
        if name in PIP_ONLY:
            continue
        if name in OPTIONAL_EXTRAS:
            continue
        assert name in PYTHON_KEYS, (f'{name} (imported by {files[0]}): add its rosdep key to '
                                     'package.xml and to PYTHON_KEYS here')
        assert PYTHON_KEYS[name] in run, f'{PYTHON_KEYS[name]} ({name}) is not declared'
    text = open(os.path.join(ROOT, 'package.xml'), encoding='utf-8').read()
    assert 'pip install' in text and 'numba' in text   # the pip route is documented
    assert 'python3-numba' not in declared(root, 'depend', 'exec_depend')


def test_optional_extras_are_imported_lazily():
    """An extra's module is imported inside a function, never when its module loads."""
    for path in python_files():
        with open(path, encoding='utf-8') as stream:
            tree = ast.parse(stream.read(), path)
        for node in tree.body:
            names = ([a.name for a in node.names] if isinstance(node, ast.Import) else
                     [node.module] if isinstance(node, ast.ImportFrom) and node.level == 0
                     else [])
            for name in names:
                assert name.split('.')[0] not in OPTIONAL_EXTRAS, \
                    f'{os.path.relpath(path, ROOT)}:{node.lineno}: {name} at module level'


def test_no_unused_run_dependency():
    root = manifest()
    used = ros_imports() | interface_dependencies() | RUNTIME_ONLY | {
        PYTHON_KEYS[name] for name in third_party_imports() if name in PYTHON_KEYS}
    unused = declared(root, 'depend', 'exec_depend') - used
    assert not unused, f'declared but not used: {sorted(unused)}'


def test_colcon_test_runs_the_suite():
    """CMakeLists.txt registers every test file with ament_cmake_pytest, a test_depend."""
    cmake = open(os.path.join(ROOT, 'CMakeLists.txt'), encoding='utf-8').read()
    block = re.search(r'if\(BUILD_TESTING\)(.*?)endif\(\)', cmake, re.S).group(1)
    assert 'find_package(ament_cmake_pytest REQUIRED)' in block
    assert 'test/test_*.py' in block and 'ament_add_pytest_test(' in block
    assert 'ament_cmake_pytest' in declared(manifest(), 'test_depend')


def test_ament_cmake_package_generating_interfaces():
    root = manifest()
    assert root.find('export/build_type').text == 'ament_cmake'
    assert {'ament_cmake', 'ament_cmake_python',
            'rosidl_default_generators'} <= declared(root, 'buildtool_depend')
    assert 'rosidl_default_runtime' in declared(root, 'exec_depend')
    assert declared(root, 'member_of_group') == {'rosidl_interface_packages'}
    assert interface_dependencies() <= declared(root, 'depend')
    cmake = open(os.path.join(ROOT, 'CMakeLists.txt'), encoding='utf-8').read()
    listed = re.search(r'DEPENDENCIES ([\w ]+)\n', cmake).group(1).split()
    assert set(listed) == interface_dependencies()


def test_ros_dependencies_have_pinned_wheels():
    pins = {}
    for name in ('ros.txt', 'test.txt'):   # the linters (test_depend) are in test.txt
        with open(os.path.join(ROOT, 'requirements', name), encoding='utf-8') as stream:
            for line in stream:
                match = re.match(r'ros-kilted-([a-z0-9-]+)==', line)
                if match:
                    pins[match.group(1).replace('-', '_')] = name
    root = manifest()
    wanted = (declared(root, 'depend', 'exec_depend', 'buildtool_depend', 'test_depend')
              - ROS_WITHOUT_WHEELS - set(PYTHON_KEYS.values()) - {'python3-pytest'})
    assert wanted - set(pins) == set()
    # colcon test: CMakeLists.txt registers the suite, so every build (make run's too) needs it
    assert pins.get('ament_cmake_pytest') == 'ros.txt'
    assert 'visualization_msgs' not in pins   # nothing uses it
