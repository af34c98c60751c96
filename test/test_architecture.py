# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
The package's structure, measured: the layer contract, import cycles, private reaches, sizes.

The contract is import-linter's (setup.cfg, ``[importlinter]``), run here on the source
tree. Reaches into another module's private names and modules over 600 lines are held to
the lists below, which may only shrink: a new one fails, and so does a listed one that is
gone (take it off the list).
"""

import ast
import configparser
import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
PACKAGE = ROOT / 'ros_dynamics'
MAX_LINES = 600

# (module, reach) pairs of a module using another module's private name: none remain (the
# runtime layer's public API replaced them); the list stays as the place to see it
KNOWN_PRIVATE_REACHES = set()
# private names of other libraries (numba, os) and of the module's own class on another
# instance of it: not reaches across this package's modules
NOT_REACHES = {
    ('runtime/jit.py', 'dispatcher._can_compile'), ('runtime/lanes.py', 'view._getvalue'),
    ('description/actuator_parameters.py', 'copy._check'), ('nodes/__init__.py', 'os._exit'),
    ('model/robot.py', 'model._arrays'), ('model/robot.py', 'model._reals'),
    ('model/robot.py', 'model._singular_tolerance'),
}
# modules over MAX_LINES lines, to be split
KNOWN_LONG = set()


def private_reaches(path: pathlib.Path) -> set:
    """Return the (module, reach) pairs of a module that use a private name not its own."""
    module = path.relative_to(PACKAGE).as_posix()
    reaches = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.ImportFrom) and (node.module or '').startswith('ros_dynamics'):
            reaches |= {(module, f'import {node.module}.{alias.name}') for alias in node.names
                        if alias.name.startswith('_') and not alias.name.startswith('__')}
        elif (isinstance(node, ast.Attribute) and node.attr.startswith('_')
              and not node.attr.startswith('__')
              and not (isinstance(node.value, ast.Name) and node.value.id in ('self', 'cls'))):
            reaches.add((module, f'{ast.unparse(node.value)}.{node.attr}'))
    return reaches - NOT_REACHES


def test_the_layer_contract_is_kept():
    """import-linter's contracts in setup.cfg: ROS-free core, kernels below, no cycles."""
    lint_imports = pathlib.Path(sys.executable).parent / 'lint-imports'   # import-linter's
    result = subprocess.run([str(lint_imports), '--no-cache'], cwd=ROOT, capture_output=True,
                            text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    assert 'Contracts: 3 kept, 0 broken.' in result.stdout, result.stdout


def test_the_ros_free_contract_lists_every_core_module():
    """A module added to the core is checked too: the contract names every one but the nodes."""
    config = configparser.ConfigParser()
    config.read(ROOT / 'setup.cfg')
    listed = set(config['importlinter:contract:ros-free']['source_modules'].split())
    core = {f'ros_dynamics.{path.stem}' for path in PACKAGE.iterdir()
            if (path.suffix == '.py' and path.stem != '__init__')
            or (path.is_dir() and (path / '__init__.py').exists())}
    assert core - {'ros_dynamics.nodes', 'ros_dynamics.bringup'} == listed


@pytest.mark.parametrize('source, expected', [
    ('from ros_dynamics.model.robot import _as_array\n',
     {('x.py', 'import ros_dynamics.model.robot._as_array')}),
    ('def f(robot):\n    return robot._model\n', {('x.py', 'robot._model')}),
    ('class A:\n    def f(self):\n        return self._model\n', set()),
])
def test_the_reach_check_sees_a_reach(tmp_path, source, expected, monkeypatch):
    monkeypatch.setattr(sys.modules[__name__], 'PACKAGE', tmp_path)
    path = tmp_path / 'x.py'
    path.write_text(source)
    assert private_reaches(path) == expected


def test_no_new_reach_into_private_names():
    reaches = set().union(*(private_reaches(path) for path in PACKAGE.rglob('*.py')))
    assert reaches - KNOWN_PRIVATE_REACHES == set(), 'new reaches into private names'
    assert KNOWN_PRIVATE_REACHES - reaches == set(), 'gone: take them off the list'


def test_no_new_long_module():
    long = {path.relative_to(PACKAGE).as_posix() for path in PACKAGE.rglob('*.py')
            if len(path.read_text().splitlines()) > MAX_LINES}
    assert long - KNOWN_LONG == set(), f'modules over {MAX_LINES} lines'
    assert KNOWN_LONG - long == set(), 'shorter now: take them off the list'


# old import paths of public modules that moved into the layer folders: kept for a release
DEPRECATED_PATHS = {'closed_chain': 'simulation.closed_chain',
                    'trajectories': 'control.trajectories',
                    'scale_out': 'rollouts.scale_out'}


def test_every_top_level_module_has_a_layer():
    """The layers contract names every top-level module and folder: a new one must be placed."""
    config = configparser.ConfigParser()
    config.read(ROOT / 'setup.cfg')
    layers = config['importlinter:contract:layers']['layers']
    named = {name.strip() for line in layers.split('\n') for name in line.split(':') if name}
    top = {path.stem for path in PACKAGE.iterdir()
           if (path.suffix == '.py' and path.stem != '__init__')
           or (path.is_dir() and (path / '__init__.py').exists())}
    assert top - named == set(), 'place these in a layer (setup.cfg, docs/architecture.md)'
    loose = {name for name in top if (PACKAGE / f'{name}.py').exists()}
    assert loose == {'exceptions', 'bringup'} | set(DEPRECATED_PATHS), \
        "a new module goes in its layer's folder, not at the top level"


@pytest.mark.parametrize('old, new', sorted(DEPRECATED_PATHS.items()))
def test_a_moved_public_path_still_imports_with_a_warning(old, new):
    code = ('import importlib, warnings\n'
            'with warnings.catch_warnings(record=True) as caught:\n'
            '    warnings.simplefilter("always")\n'
            f'    old = importlib.import_module("ros_dynamics.{old}")\n'
            f'new = importlib.import_module("ros_dynamics.{new}")\n'
            'assert old.__all__ and all(getattr(old, n) is getattr(new, n) for n in old.__all__)\n'
            'print([str(w.message) for w in caught if w.category is DeprecationWarning])\n')
    result = subprocess.run([sys.executable, '-c', code], cwd=ROOT, capture_output=True,
                            text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert f'ros_dynamics.{old} moved to ros_dynamics.{new}' in result.stdout
