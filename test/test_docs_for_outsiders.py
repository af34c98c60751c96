# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
The documentation reads for someone who has only the repository.

No internal shorthand ("seed 001", "lecture 3", "issue 8") where a published
source belongs (Ghosal's NPTEL notes, Featherstone 2008, Khatib 1987, Craig),
no path outside the repository, and every relative Markdown link resolves to
a file in it.
"""

import glob
import os
import re

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DOCUMENTS = ['README.md', 'docs/**/*.md', 'benchmarks/*.md', 'config/*.yaml', 'urdf/*.urdf',
             'launch/*.py', 'package.xml', 'CMakeLists.txt']
INSIDER = {
    # "seed 001", "the seeds' circle"; not a random generator's seed (seed=3, SEED)
    'a seed (internal name of a source)': re.compile(r'(?!SEED\b)(?i:\bseeds?\b)(?!\s*=)'),
    'a lecture number': re.compile(r'\blectures? \d', re.I),
    'an issue number': re.compile(r'\bissues? #?\d', re.I),
    'a file outside the repository': re.compile(r'\.\./shared|SEEDS_NOTES|ROS_ENV\.md|/work/'),
}


def documents() -> list:
    paths = set()
    for pattern in DOCUMENTS:
        paths.update(glob.glob(os.path.join(ROOT, pattern), recursive=True))
    return sorted(paths)


def test_the_documents_are_found():
    names = {os.path.relpath(p, ROOT) for p in documents()}
    assert {'README.md', 'docs/conventions.md', 'benchmarks/README.md',
            'config/bringup.yaml', 'urdf/planar_2r.urdf'} <= names


@pytest.mark.parametrize('path', documents(), ids=lambda p: os.path.relpath(p, ROOT))
def test_no_insider_references(path):
    with open(path, encoding='utf-8') as stream:
        lines = stream.read().splitlines()
    found = [f'{os.path.relpath(path, ROOT)}:{number}: {what}: {line.strip()}'
             for number, line in enumerate(lines, 1)
             for what, pattern in INSIDER.items() if pattern.search(line)]
    assert not found, 'cite the published source instead:\n' + '\n'.join(found)


@pytest.mark.parametrize('path', [p for p in documents() if p.endswith('.md')],
                         ids=lambda p: os.path.relpath(p, ROOT))
def test_relative_links_resolve_inside_the_repository(path):
    with open(path, encoding='utf-8') as stream:
        text = stream.read()
    for target in re.findall(r'\]\(([^)\s]+)\)', text):
        if re.match(r'[a-z]+:', target) or target.startswith('#'):
            continue   # a URL or an anchor
        resolved = os.path.normpath(os.path.join(os.path.dirname(path), target.split('#')[0]))
        assert resolved.startswith(ROOT + os.sep), f'{target} leaves the repository'
        assert os.path.exists(resolved), f'{os.path.relpath(path, ROOT)} links to missing {target}'
