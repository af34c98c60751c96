# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
The ament linters over our sources, as `colcon test` would run them.

ament_flake8 and ament_pep257 come from the Kilted wheels; ament_copyright has
no wheel, so the copyright check is ours: the header every file starts with.
"""

import os
import re

from ament_flake8.main import main_with_errors as flake8_main
from ament_pep257.main import main as pep257_main
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SOURCES = [os.path.join(ROOT, path) for path in
           ('ros_dynamics', 'test', 'benchmarks', 'examples', 'launch', 'scripts', 'setup.py')
           if os.path.exists(os.path.join(ROOT, path))]


def python_files() -> list:
    files = []
    for source in SOURCES:
        if os.path.isfile(source):
            files.append(source)
            continue
        for directory, _, names in os.walk(source):
            files.extend(os.path.join(directory, n) for n in names if n.endswith('.py'))
    return sorted(files)


@pytest.mark.linter
def test_flake8():
    rc, errors = flake8_main(argv=SOURCES)
    assert rc == 0, f'Found {len(errors)} code style errors / warnings:\n' + '\n'.join(errors)


@pytest.mark.linter
def test_pep257():
    rc = pep257_main(argv=SOURCES)
    assert rc == 0, 'Found docstring style errors (see the output above)'


HEADER = re.compile(r'(#!.*\n)?# Copyright \d{4}(-\d{4})? The ros_dynamics Authors\n'
                    r'# SPDX-License-Identifier: Apache-2\.0\n')


@pytest.mark.linter
def test_copyright():
    files = python_files()
    assert files
    missing = []
    for path in files:
        with open(path, encoding='utf-8') as stream:
            if not HEADER.match(stream.read(400)):
                missing.append(os.path.relpath(path, ROOT))
    assert not missing, 'files without the copyright and SPDX lines: ' + ', '.join(missing)
