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

"""The worked example of docs/identification.md runs and its assertions hold."""

import os
import re

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..')


def test_identification_worked_example(monkeypatch):
    monkeypatch.chdir(ROOT)   # the example loads urdf/panda_arm.urdf
    with open(os.path.join('docs', 'identification.md'), encoding='utf-8') as stream:
        blocks = re.findall(r'```python\n(.*?)```', stream.read(), re.S)
    assert blocks, 'docs/identification.md lost its worked example'
    for block in blocks:
        exec(compile(block, 'docs/identification.md', 'exec'), {})
