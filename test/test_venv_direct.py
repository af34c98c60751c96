# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
After ``make build`` the venv's Python uses the built package directly.

``make build`` runs scripts/venv_pth.py, which writes a .pth file into the
venv; then ``.venv/bin/python`` (nothing sourced, any directory) imports
``ros_dynamics`` with its generated ``msg``/``srv`` and serializes them with
rclpy.
"""

import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, 'scripts'))
import venv_pth  # noqa: E402

pytestmark = pytest.mark.ros


def test_pth_line_is_relative_to_the_venv_it_is_read_from():
    line = venv_pth.pth_line('/somewhere/checkout/.venv')
    site = f'/somewhere/checkout/.venv/lib/python{sys.version_info[0]}.{sys.version_info[1]}/' \
        'site-packages'
    assert os.path.normpath(os.path.join(site, line)) == (
        f'/somewhere/checkout/install/ros_dynamics/lib/python{sys.version_info[0]}.'
        f'{sys.version_info[1]}/site-packages')
    assert not os.path.isabs(line)


def test_venv_python_imports_and_uses_the_built_interfaces(tmp_path):
    venv_python = os.path.join(ROOT, '.venv', 'bin', 'python')
    subprocess.run([venv_python, '-S', os.path.join(ROOT, 'scripts', 'venv_pth.py')],
                   check=True, timeout=60)   # what `make build` does after colcon
    code = ('import ros_dynamics, ros_dynamics.msg, ros_dynamics.srv\n'
            'from rclpy.serialization import serialize_message\n'
            'from ros_dynamics.srv import InverseDynamics\n'
            'assert serialize_message(InverseDynamics.Request(gravity_only=True))\n'
            'print(ros_dynamics.__file__)\n')
    env = {'HOME': os.environ.get('HOME', str(tmp_path)), 'PATH': '/usr/bin:/bin'}
    result = subprocess.run([venv_python, '-c', code], cwd=tmp_path, env=env,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr[-3000:]
    assert result.stdout.strip().startswith(os.path.join(ROOT, 'install', 'ros_dynamics'))


def test_ros_dynamics_command_after_make_build(tmp_path):
    """
    ``.venv/bin/ros-dynamics`` runs this checkout's command from anywhere, nothing sourced.

    make build writes it (scripts/venv_pth.py); ``source .venv/bin/activate``
    puts it on PATH, as the README says.
    """
    venv = os.path.join(ROOT, '.venv')
    subprocess.run([os.path.join(venv, 'bin', 'python'), '-S',
                    os.path.join(ROOT, 'scripts', 'venv_pth.py')], check=True, timeout=60)
    launcher = os.path.join(venv, 'bin', 'ros-dynamics')
    assert os.access(launcher, os.X_OK)
    env = {'HOME': os.environ.get('HOME', str(tmp_path)), 'PATH': '/usr/bin:/bin'}
    urdf = os.path.join(ROOT, 'urdf', 'planar_2r.urdf')
    direct = subprocess.run([launcher, 'info', urdf], cwd=tmp_path, env=env,
                            capture_output=True, text=True, timeout=120)
    assert direct.returncode == 0, direct.stderr[-3000:]
    assert 'link2' in direct.stdout and 'mass' in direct.stdout.lower()
    # on PATH once the venv is activated (bash, as a newcomer's shell), the same command
    activated = subprocess.run(
        ['bash', '-c', f'source {venv}/bin/activate && command -v ros-dynamics && '
                       f'ros-dynamics info {urdf} && sed -n 4p "$(command -v ros-dynamics)"'],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert activated.returncode == 0, activated.stderr[-3000:]
    assert activated.stdout.splitlines()[0].endswith('/bin/ros-dynamics')
    assert direct.stdout in activated.stdout
    # the launcher runs this checkout's .venv Python (which imports this checkout's install/)
    traced = subprocess.run(['sh', '-x', launcher, '--help'], cwd=tmp_path, env=env,
                            capture_output=True, text=True, timeout=120)
    assert traced.returncode == 0 and 'usage' in traced.stdout.lower()
    assert f'exec {venv}/bin/python -m ros_dynamics.cli --help' in traced.stderr
