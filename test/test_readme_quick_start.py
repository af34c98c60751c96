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

"""The README's quick start as a newcomer reads it: its commands exist and its code runs."""

import os
import re

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def readme() -> str:
    with open(os.path.join(ROOT, 'README.md'), encoding='utf-8') as stream:
        return stream.read()


def test_the_make_targets_it_names_exist():
    named = set(re.findall(r'(?:^|`)make (\w+)', readme(), re.M))
    assert {'run', 'test', 'bench', 'fuzz'} <= named
    with open(os.path.join(ROOT, 'Makefile'), encoding='utf-8') as stream:
        targets = set(re.findall(r'^([\w-]+):', stream.read(), re.M))
    assert named <= targets, f'README names make targets the Makefile lacks: {named - targets}'


def test_the_core_example_runs(monkeypatch):
    """The first Python block (model, dynamics, simulator, rollouts) runs from the repository."""
    blocks = re.findall(r'```python\n(.*?)```', readme(), re.S)
    assert blocks, 'the README lost its Python example'
    monkeypatch.chdir(ROOT)   # it loads urdf/panda_arm.urdf by a relative path
    namespace = {}
    exec(compile(blocks[0], 'README.md', 'exec'), namespace)
    robot, np = namespace['robot'], namespace['np']
    assert np.allclose(namespace['qdd'], np.ones(robot.dof), atol=1e-9)   # FD after ID
    assert namespace['qs'].shape == (256, 1001, robot.dof)


@pytest.mark.parametrize('command', ['pip install -e .', 'make run', 'make test'])
def test_the_commands_it_shows_are_in_its_code_blocks(command):
    shown = '\n'.join(re.findall(r'```bash\n(.*?)```', readme(), re.S))
    assert command in shown
