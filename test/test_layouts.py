# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
The named layouts (multibody/layouts.py): unique names, widths that add up, real arrays.

Each flat array the kernels exchange is declared once in layouts.py; these tests fail on a
name declared twice (in two layouts, or in a layout and a module), on a column constant
whose name means two things in two modules, on a layout whose fields do not tile its width,
and on a packed model whose width is not the declared one.
"""

import ast
import pathlib
import re

import numpy as np
import pytest
from robot_data import example_urdf
from ros_dynamics.description.model_build import build_model_arrays
from ros_dynamics.description.urdf import parse_urdf_file
from ros_dynamics.multibody import joints, layouts
from ros_dynamics.multibody.layouts import Field, Layout
from ros_dynamics.runtime import jit as _jit

PACKAGE = pathlib.Path(__file__).resolve().parent.parent / 'ros_dynamics'


def module_int_constants(path: pathlib.Path) -> dict:
    """Return {NAME: value} of a module's top-level assignments of an int to an UPPER name."""
    constants = {}
    namespace = dict(vars(layouts))
    for node in ast.parse(path.read_text(), str(path)).body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 \
                and isinstance(node.targets[0], ast.Name) and node.targets[0].id.isupper():
            try:   # literals and sums of layouts' names (MAX_JOINT_NV, ...)
                value = eval(compile(ast.Expression(node.value), str(path), 'eval'), namespace)
            except Exception:   # noqa: B902 (names of the module itself: not a column)
                continue
            if type(value) is int:
                constants[node.targets[0].id] = value
    return constants


def package_constants() -> dict:
    """Return {NAME: {module: value}} over every module of the package but layouts.py."""
    seen = {}
    for path in sorted(PACKAGE.rglob('*.py')):
        if path.name == 'layouts.py':
            continue
        for name, value in module_int_constants(path).items():
            seen.setdefault(name, {})[path.relative_to(PACKAGE).as_posix()] = value
    return seen


def test_no_module_declares_a_layout_name_again():
    generated = layouts.generated_names()
    again = {name: modules for name, modules in package_constants().items()
             if name in generated}
    assert again == {}, f'declared in layouts.py and again in a module: {again}'


def test_no_constant_name_means_two_things():
    clashes = {name: modules for name, modules in package_constants().items()
               if len(set(modules.values())) > 1}
    assert clashes == {}, f'one name, two values in two modules: {clashes}'


def test_a_prefix_names_one_array():
    """C_* is the control array only: no two layouts and no module constant share a prefix."""
    prefixes = [layout.prefix for layout in layouts.LAYOUTS if layout.prefix and layout.export]
    assert len(prefixes) == len(set(prefixes))
    borrowed = {name: modules for name, modules in package_constants().items()
                if any(name.startswith(prefix) for prefix in prefixes)}
    assert borrowed == {}, f"module constants named like a layout's fields: {borrowed}"


def test_the_clash_checks_see_a_clash(monkeypatch):
    with pytest.raises(ValueError, match='FIRST declared twice'):
        Layout('twice', 'X_', [Field('FIRST', 1, ''), Field('FIRST', 2, '')], 'NX')
    one = Layout('one', 'X_', [Field('A', 1, ''), Field('B', 2, '')], 'NX')
    other = Layout('other', 'X_', [Field('B', 1, '')], 'NX_OTHER')   # X_B: 1 and 0
    monkeypatch.setattr(layouts, 'LAYOUTS', (one, other))
    with pytest.raises(ValueError, match='X_B is 1 in one layout and 0 in other'):
        layouts.generated_names()


@pytest.mark.parametrize('layout', layouts.LAYOUTS, ids=lambda layout: layout.width_name)
def test_fields_tile_the_width(layout):
    """The declared fields are consecutive from 0 and end at the width; an overlay within it."""
    offsets = layout.offsets
    declared = list(layout.fields_declared)
    total = sum(f.width.width if isinstance(f.width, Layout) else f.width for f in declared)
    overlaid = {field.name for field in layout.overlay[1]}
    spans = sorted(span for name, span in offsets.items() if name not in overlaid)
    end = 0
    for offset, width in spans:
        assert offset == end, f'{layout.title}: a gap or an overlap at column {end}'
        end += width
    if overlaid:
        start = offsets[layout.overlay[0]][0]
        over = sorted(offsets[name] for name in overlaid)
        assert over[0][0] == start
        assert over[-1][0] + over[-1][1] == layout.width >= end
    else:
        assert end == total == layout.width
    constants = layout.constants()
    assert constants[layout.width_name] == layout.width == getattr(layouts, layout.width_name)
    for name, value in constants.items():
        assert getattr(layouts, name) == value


def test_a_wrong_width_is_refused():
    with pytest.raises(ValueError, match='has width 0'):
        Layout('empty field', 'Y_', [Field('A', 0, '')], 'NY')
    with pytest.raises(ValueError, match=r'expected a last axis of 10 \(NWRENCH\), got 9'):
        layouts.WRENCH_LAYOUT.fields(np.zeros((2, 9)))


def test_views_name_the_columns_the_kernels_read():
    row = layouts.wrench_row(3, np.array([1.0, 2.0, 3.0]), np.arange(6.0) + 10.0)
    assert row[layouts.WRENCH_BODY] == 3.0
    assert row[layouts.WRENCH_OFFSET:layouts.WRENCH_OFFSET + 3].tolist() == [1.0, 2.0, 3.0]
    assert row[layouts.WRENCH_FORCE:layouts.WRENCH_FORCE + 3].tolist() == [10.0, 11.0, 12.0]
    assert row[layouts.WRENCH_TORQUE:layouts.WRENCH_TORQUE + 3].tolist() == [13.0, 14.0, 15.0]
    model = np.arange(2 * layouts.NCOL, dtype=float).reshape(2, layouts.NCOL)
    view = layouts.MODEL_LAYOUT.view(model, 'COL_JOINT_NV')
    assert view.shape == (2, 1) and view[1, 0] == layouts.NCOL + layouts.COL_JOINT_NV
    assert np.shares_memory(view, model)
    table = layouts.ABA_LAYOUT.describe().splitlines()
    assert table[0].endswith(f'{layouts.NABA} (NABA)')
    assert f'  {layouts.ABA_MULTI_U:4d}  36  ABA_MULTI_U  ' in '\n'.join(table)


def test_the_packed_model_has_the_declared_columns():
    spec = parse_urdf_file(example_urdf('panda_description/urdf/panda.urdf'))
    arrays = build_model_arrays(spec)
    assert arrays.ints.shape[1] == layouts.NINT and arrays.reals.shape[1] == layouts.NREAL
    model = joints.pack(arrays.ints, arrays.reals, arrays.nq, arrays.nv,
                        np.array([0.0, 0.0, -9.81]), 1e-9)
    nb = arrays.ints.shape[0]
    assert model.shape == (nb + 1, layouts.NCOL)
    assert layouts.HEADER_LAYOUT.width <= layouts.NCOL
    assert np.array_equal(model[:nb, layouts.COL_PARENT:layouts.COL_PARENT + layouts.NINT],
                          arrays.ints)
    assert np.array_equal(model[:nb, :layouts.NREAL], arrays.reals)
    header = layouts.HEADER_LAYOUT.fields(model[nb, :layouts.HEADER_LAYOUT.width])
    assert header['GRAVITY'].tolist() == [0.0, 0.0, -9.81]
    # seven arm joints and one finger (the other finger mimics it)
    assert (header['NQ'][0], header['NV'][0]) == (arrays.nq, arrays.nv) == (8, 8)


def test_no_raw_column_numbers_in_the_kernels():
    """A body row's columns are read by name: load/store at a literal column is refused."""
    literal = re.compile(r'\b(load|store)\d+\([^,()]+, [^,()]+, [0-9]+[,)]')
    found = []
    for path in sorted(PACKAGE.rglob('*.py')):
        for number, line in enumerate(path.read_text().splitlines(), 1):
            if literal.search(line):
                found.append(f'{path.relative_to(PACKAGE)}:{number}: {line.strip()}')
    assert found == []


def test_a_changed_layout_recompiles_the_kernels(tmp_path):
    """The kernels freeze the offsets: layouts.py is part of the compiled cache's digest."""
    package = tmp_path / 'ros_dynamics'
    (package / 'multibody').mkdir(parents=True)
    source = (PACKAGE / 'multibody' / 'layouts.py').read_text()
    (package / 'multibody' / 'layouts.py').write_text(source)
    before = _jit.kernel_sources(package)
    assert list(before) == ['multibody/layouts.py']
    (package / 'multibody' / 'layouts.py').write_text(source + '# edited\n')
    assert _jit.kernel_sources(package) != before
    assert 'multibody/layouts.py' in _jit.kernel_sources()
