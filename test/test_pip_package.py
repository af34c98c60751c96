# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
The pip route: ``pip install .`` gives the ROS-free core with its C extension.

pyproject.toml declares numpy as a build requirement, so pip's isolated
build compiles ``_statecall.c`` (without it setup.py could not import numpy
and silently skipped the optional extension). A missing extension is not
silent either: importing the package warns once.
"""

import os
import shutil
import subprocess
import sys
import zipfile

from test_workspace_build import repository_files

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXTENSION_WARNING = 'ros_dynamics.runtime._statecall is not built'


def run_python(code: str, env: dict, cwd: str) -> subprocess.CompletedProcess:
    """Run ``code`` in a fresh interpreter of this environment."""
    return subprocess.run([sys.executable, '-c', code], env=env, cwd=cwd, capture_output=True,
                          text=True, timeout=300)


def test_missing_extension_warns_exactly_once(tmp_path):
    code = ('import sys, warnings\n'
            "sys.modules['ros_dynamics.runtime._statecall'] = None   # the import fails\n"
            'with warnings.catch_warnings(record=True) as caught:\n'
            "    warnings.simplefilter('always')\n"
            '    import ros_dynamics\n'
            '    from ros_dynamics import RobotModel\n'
            '    from ros_dynamics.runtime import statecall\n'
            "    RobotModel.from_urdf_file('urdf/planar_2r.urdf')\n"
            'assert statecall.StateCall is statecall.CtypesStateCall\n'
            'for w in caught:\n'
            '    print(w.category.__name__, w.message)\n')
    env = dict(os.environ, PYTHONPATH=ROOT, ROS_DYNAMICS_PRECOMPILE='0')
    result = run_python(code, env, ROOT)
    assert result.returncode == 0, result.stderr
    lines = [line for line in result.stdout.splitlines() if EXTENSION_WARNING in line]
    assert len(lines) == 1, result.stdout
    assert lines[0].startswith('RuntimeWarning')
    for advice in ('ctypes', '20x slower', 'pip install .', 'colcon build'):
        assert advice in lines[0]


def test_built_extension_imports_without_warning(tmp_path):
    code = ('import warnings\n'
            "warnings.simplefilter('error')\n"
            'from ros_dynamics.runtime import statecall, _statecall\n'
            'assert statecall.StateCall is _statecall.StateCall\n')
    result = run_python(code, dict(os.environ), str(tmp_path))
    assert result.returncode == 0, result.stderr


def test_pip_builds_the_ros_free_core_with_its_extension(tmp_path):
    source = tmp_path / 'source'
    for name in repository_files(ROOT):
        (source / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(os.path.join(ROOT, name), source / name)
    wheels = tmp_path / 'wheels'
    build = subprocess.run([sys.executable, '-m', 'pip', 'wheel', '--no-deps',
                            '--disable-pip-version-check', '-w', str(wheels), str(source)],
                           capture_output=True, text=True, timeout=600)
    assert build.returncode == 0, build.stdout[-3000:] + build.stderr[-3000:]
    (wheel,) = wheels.glob('ros_dynamics-*.whl')
    names = zipfile.ZipFile(wheel).namelist()
    assert any(n.startswith('ros_dynamics/runtime/_statecall.') and n.endswith('.so')
               for n in names)
    assert 'ros_dynamics/model/robot.py' in names
    assert not [n for n in names if n.startswith(('ros_dynamics/msg/', 'ros_dynamics/srv/'))]
    assert not [n for n in names if '/share/' in n or n.startswith('share/')]
    entry_points = next(n for n in names if n.endswith('entry_points.txt'))
    assert 'ros-dynamics = ros_dynamics.cli:main' in zipfile.ZipFile(wheel).read(
        entry_points).decode()

    # installed on its own (no rclpy needed): the core imports, with its own extension and
    # without a warning (the wheel has no ROS interfaces, checked above)
    target = tmp_path / 'site'
    install = subprocess.run([sys.executable, '-m', 'pip', 'install', '--no-deps',
                              '--disable-pip-version-check', '--target', str(target),
                              str(wheel)], capture_output=True, text=True, timeout=300)
    assert install.returncode == 0, install.stderr
    code = ('import sys, warnings\n'
            "warnings.simplefilter('error')\n"
            'import ros_dynamics\n'
            'from ros_dynamics import RobotModel\n'
            'from ros_dynamics.runtime import statecall, _statecall\n'
            'assert statecall.StateCall is _statecall.StateCall\n'
            f'assert ros_dynamics.__file__.startswith({str(target)!r}), ros_dynamics.__file__\n'
            f'assert _statecall.__file__.startswith({str(target)!r}), _statecall.__file__\n'
            "assert 'rclpy' not in sys.modules\n")
    env = {key: value for key, value in os.environ.items() if key != 'PYTHONPATH'}
    env['PYTHONPATH'] = str(target)
    result = run_python(code, env, str(tmp_path))
    assert result.returncode == 0, result.stderr
