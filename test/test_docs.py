# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""The worked example of docs/conventions.md runs and its assertions hold."""

import os
import re


def test_conventions_worked_example():
    path = os.path.join(os.path.dirname(__file__), '..', 'docs', 'conventions.md')
    with open(path, encoding='utf-8') as stream:
        blocks = re.findall(r'```python\n(.*?)```', stream.read(), re.S)
    assert blocks, 'docs/conventions.md lost its worked example'
    for block in blocks:
        exec(compile(block, 'docs/conventions.md', 'exec'), {})
