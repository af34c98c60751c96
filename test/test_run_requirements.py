# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
`make run` installs what running needs: requirements/core.txt and ros.txt, not test.txt.

Every module of the package (the nodes, the bringup, the command line, the
core) is imported in a fresh interpreter, and each third-party module it
pulls in must belong to a distribution that core.txt and ros.txt install,
directly or as a dependency (their metadata, extras left out). The optional
extras (identification, plot, scale) are imported lazily
(test_package_xml.py), so they are not needed to import anything.
"""

import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

CHECK = """
import importlib, importlib.metadata as metadata, json, pkgutil, sys
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
baseline = set(sys.modules)


def requirement_names(path):
    with open(path, encoding='utf-8') as stream:
        lines = (line.split('#')[0].strip() for line in stream)
        return [Requirement(line).name for line in lines if line]


closure, todo = set(), requirement_names(sys.argv[1]) + requirement_names(sys.argv[2])
while todo:
    name = canonicalize_name(todo.pop())
    if name in closure:
        continue
    closure.add(name)
    try:
        requires = metadata.requires(name) or []
    except metadata.PackageNotFoundError:
        continue
    for text in requires:
        requirement = Requirement(text)
        if requirement.marker is None or requirement.marker.evaluate({'extra': ''}):
            todo.append(requirement.name)
for name in sys.argv[3:]:
    module = importlib.import_module(name)
    if name == 'ros_dynamics':
        for info in pkgutil.walk_packages(module.__path__, 'ros_dynamics.'):
            if not info.name.endswith('__main__'):   # the command line's: it runs
                importlib.import_module(info.name)
owners = metadata.packages_distributions()
outside = {}
for name in set(sys.modules) - baseline:
    top = name.split('.')[0]
    distributions = {canonicalize_name(d) for d in owners.get(top, [])}
    if distributions and top != 'ros_dynamics' and not distributions & closure:
        outside[top] = sorted(distributions)
print(json.dumps({'closure': len(closure), 'outside': outside}))
"""


def imports_outside_the_run_requirements(*modules: str) -> dict:
    """Import ``modules`` (all of ros_dynamics for 'ros_dynamics'); return what core+ros lack."""
    requirements = [os.path.join(ROOT, 'requirements', name) for name in ('core.txt', 'ros.txt')]
    result = subprocess.run([sys.executable, '-c', CHECK, *requirements, *modules],
                            capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert result.returncode == 0, result.stderr[-3000:]
    return json.loads(result.stdout.splitlines()[-1])


def test_every_module_runs_on_the_run_requirements():
    found = imports_outside_the_run_requirements('ros_dynamics', 'ros_dynamics.nodes.process')
    assert found['closure'] > 50   # core.txt, ros.txt and what they pull in
    assert found['outside'] == {}


def test_a_test_only_import_is_caught():
    """The check itself: matplotlib (and its Pillow) come with test.txt only."""
    found = imports_outside_the_run_requirements('matplotlib.pyplot')
    assert set(found['outside']) >= {'matplotlib', 'PIL'}


def test_the_run_level_installs_no_test_requirement():
    """setup_venv.sh run installs core.txt and ros.txt; test.txt is only for the test level."""
    script = open(os.path.join(ROOT, 'scripts', 'setup_venv.sh'), encoding='utf-8').read()
    assert 'run_files=(requirements/core.txt requirements/ros.txt)' in script
    makefile = open(os.path.join(ROOT, 'Makefile'), encoding='utf-8').read()
    assert 'setup:\n\t@scripts/setup_venv.sh run\n' in makefile
    for target in ('test', 'bench', 'fuzz'):
        assert f'\n{target}: setup-test build\n' in makefile
    assert '\nrun: build\n' in makefile
