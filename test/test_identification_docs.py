# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

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
