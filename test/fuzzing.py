# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
Seeded fuzzers of the core, run in long-lived child workers.

Every case is named by (kind, seed): the child generates it from the seed,
runs it and answers with its outcome class, so a case is reproduced with
``python test/fuzzing.py <kind> <seed>``. A child that crashes or exceeds
the time limit is counted (outcome 'crash' or 'hang') and replaced; the
fuzz tests then fail on any defect. Seeded generators rather than a
property-based library: every case runs out of process, and the counts per
outcome class are what `make fuzz` reports.

Kinds:
* ``urdf``: 1-3 mutations (values, elements, attributes, references, joint
  types, text) of an example-robot-data or repository URDF. Outcomes: a
  URDFError, or a model whose algorithms give finite results at random
  states of sane magnitude (SingularMassMatrixError allowed); anything else
  is a defect.
* ``api``: one public RobotModel call with fuzzed arguments (shapes, dtypes,
  strides, alignment, read-only, NaN/Inf, lists, None, unknown links, huge
  batches). Outcomes: TypeError/ValueError for invalid arguments, or exactly
  the result of the same call on contiguous float64 copies.
* ``rollout``: ``rollout`` of a small random batch (1-11 rows, the groups of 4
  of its vector lanes and their padding) on an arm without mimic joints,
  random armature, damping, friction, limit stops, integrator and step,
  initial states from calm to violent, efforts from none (free swings: the
  energy check) to saturating, with NaN efforts now and then. Outcomes:
  states equal bit for bit (NaN where refused) to separate Simulator runs,
  per row 'ran through' or 'refused'; anything else is a defect.
"""

import functools
import glob
import json
import os
import select
import subprocess
import sys
import time
import traceback
import warnings
import xml.etree.ElementTree as ElementTree

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
SCALE = float(os.environ.get('ROS_DYNAMICS_FUZZ_SCALE', '1'))
CASE_SECONDS = 60.0        # per case (a worker's first case loads the kernels)
DEFECTS = ('defect', 'crash', 'hang')


@functools.lru_cache(maxsize=1)
def urdf_sources() -> list:
    """Return every example-robot-data URDF and the repository's, sorted."""
    from robot_data import example_robot_data_dir
    found = glob.glob(os.path.join(example_robot_data_dir(), '**', '*.urdf'), recursive=True)
    return tuple(sorted(found) + sorted(glob.glob(os.path.join(ROOT, 'urdf', '*.urdf'))))


# ---------------------------------------------------------------------------- URDF mutations
HOSTILE_VALUES = ['1e308', '-1e308', '1e200', 'nan', 'inf', '-inf', '-0', '1e-320', '1e31',
                  '-1e31', '1e30', '-1e30', '-1', '-1e-9', '1e15', '1e-15', '0', '1e-300']
MALFORMED = ['', 'abc', '1 2', '0x10', '1,2,3', '1 2 3 4', ' 1  2\t3 ', '1e', '--1']
HOSTILE_TEXT = ['\ud800', '\x00', '\x07', '<', '&', '&amp;', ']]>', '\u202e', '\uffff', '"',
                '<!ENTITY x "y">', '${x}', '<xacro:macro name="m"/>', '\U0001f916']
TAGS = ('link', 'joint', 'inertial', 'mass', 'inertia', 'origin', 'axis', 'limit', 'parent',
        'child', 'mimic', 'dynamics', 'robot')
DYNAMICS_TAGS = ('robot', 'link', 'joint', 'inertial', 'mass', 'inertia', 'origin', 'axis',
                 'limit', 'parent', 'child', 'mimic', 'dynamics')
NUMERIC_KEYS = ('xyz', 'rpy', 'value', 'ixx', 'ixy', 'ixz', 'iyy', 'iyz', 'izz', 'lower', 'upper',
                'effort', 'velocity', 'multiplier', 'offset', 'damping', 'friction')
JOINT_TYPES = ('revolute', 'continuous', 'prismatic', 'fixed', 'floating', 'planar', 'hinge',
               '')


def _random_number(rng: np.random.Generator, key: str) -> str:
    """Return a value for attribute ``key``: the right count of hostile or random numbers."""
    if rng.random() < 0.15:
        return str(rng.choice(MALFORMED))
    values = []
    for _ in range(3 if key in ('xyz', 'rpy') else 1):
        if rng.random() < 0.4:
            values.append(str(rng.choice(HOSTILE_VALUES)))
        else:
            values.append(f'{rng.normal() * 10.0 ** rng.integers(-40, 40):.6g}')
    return ' '.join(values)


def mutate(text: str, rng: np.random.Generator) -> tuple:
    """Return (mutated URDF text, description of the mutations)."""
    done = []
    root = ElementTree.fromstring(text)
    for _ in range(int(rng.integers(1, 4))):
        elements = list(root.iter())
        links = [e.get('name') for e in root.findall('link')] or ['x']
        joints = root.findall('joint')
        operator = int(rng.integers(0, 9))
        dynamic = [e for e in elements if e.tag in DYNAMICS_TAGS]
        if dynamic and rng.random() < 0.8:   # mostly what the dynamics reads
            elements = dynamic
        element = elements[int(rng.integers(len(elements)))]
        if operator <= 2 and element.attrib:            # a numeric (or any) attribute value
            keys = sorted(element.attrib)
            numeric = [k for k in keys if k in NUMERIC_KEYS]
            key = str(rng.choice(numeric if numeric and rng.random() < 0.8 else keys))
            element.set(key, _random_number(rng, key))
            done.append(f'<{element.tag} {key}> = {element.get(key)!r}')
        elif operator == 3:                             # remove an element of a given tag
            tag = str(rng.choice(TAGS))
            for parent in root.iter():
                child = parent.find(tag)
                if child is not None:
                    parent.remove(child)
                    done.append(f'removed <{tag}>')
                    break
        elif operator == 4 and element is not root:     # duplicate an element
            for parent in root.iter():
                if element in list(parent):
                    parent.append(element)
                    done.append(f'duplicated <{element.tag}>')
                    break
        elif operator == 5 and joints:                  # rewire a joint
            joint = joints[int(rng.integers(len(joints)))]
            role = str(rng.choice(['parent', 'child']))
            tag = joint.find(role)
            if tag is not None:
                tag.set('link', str(rng.choice(links + ['ghost', ''])))
                done.append(f'joint {joint.get("name")!r} {role} = {tag.get("link")!r}')
        elif operator == 6 and joints:                  # change a joint's type
            joint = joints[int(rng.integers(len(joints)))]
            joint.set('type', str(rng.choice(JOINT_TYPES)))
            done.append(f'joint {joint.get("name")!r} type = {joint.get("type")!r}')
        elif operator == 7 and joints:                  # add or change a mimic
            joint = joints[int(rng.integers(len(joints)))]
            mimic = joint.find('mimic')
            if mimic is None:
                mimic = ElementTree.SubElement(joint, 'mimic')
            leader = joints[int(rng.integers(len(joints)))].get('name') or ''
            mimic.set('joint', leader if rng.random() < 0.9 else 'ghost')
            mimic.set('multiplier', _random_number(rng, 'multiplier') if rng.random() < 0.3
                      else '-1.5')
            done.append(f'joint {joint.get("name")!r} mimics {mimic.get("joint")!r}')
        elif element.attrib:                            # delete an attribute
            key = str(rng.choice(sorted(element.attrib)))
            del element.attrib[key]
            done.append(f'deleted <{element.tag} {key}>')
    out = ElementTree.tostring(root, encoding='unicode')
    if rng.random() < 0.15:                             # text level: truncate or insert
        at = int(rng.integers(len(out) + 1))
        if rng.random() < 0.3:
            out = out[:at]
            done.append(f'truncated at {at}')
        else:
            piece = str(rng.choice(HOSTILE_TEXT))
            out = out[:at] + piece + out[at:]
            done.append(f'inserted {piece!r} at {at}')
    return out, '; '.join(done)


def sane_states(robot, rng: np.random.Generator, count: int = 2) -> list:
    """
    Return states (q, qd, qdd) of sane magnitude: within |2| (rad, m, per s, per s^2).

    q is the neutral configuration moved by up to 2 per coordinate (a floating, planar or
    ball joint's quaternion or (cos, sin) then no longer unit: the kernels normalise it).
    """
    return [(robot.neutral_configuration() + rng.uniform(-2.0, 2.0, robot.nq),
             rng.uniform(-2.0, 2.0, robot.nv), rng.uniform(-2.0, 2.0, robot.nv))
            for _ in range(count)]


def evaluate(robot, rng: np.random.Generator) -> list:
    """Run every algorithm at random sane states; return the names of non-finite results."""
    from ros_dynamics.exceptions import SingularMassMatrixError
    bad = []
    links = robot.link_names
    for q, qd, qdd in sane_states(robot, rng):
        link = links[int(rng.integers(len(links)))]
        wrench = {link: rng.uniform(-10.0, 10.0, 6)}
        calls = {
            'inverse_dynamics': lambda: robot.inverse_dynamics(q, qd, qdd),
            'inverse_dynamics wrench': lambda: robot.inverse_dynamics(q, qd, qdd, wrench),
            'gravity_torques': lambda: robot.gravity_torques(q),
            'mass_matrix': lambda: robot.mass_matrix(q),
            'coriolis_matrix': lambda: robot.coriolis_matrix(q, qd),
            'forward_dynamics': lambda: robot.forward_dynamics(q, qd, qdd),
            'forward_dynamics wrench': lambda: robot.forward_dynamics(q, qd, qdd, wrench),
            'energies': lambda: (robot.kinetic_energy(q, qd), robot.potential_energy(q)),
            'all_joint_positions': lambda: robot.all_joint_positions(q),
            'link_pose': lambda: robot.link_pose(q, link),
            'jacobian': lambda: robot.jacobian(q, link, 'world'),
            'jacobian_dot_qd': lambda: robot.jacobian_dot_qd(q, qd, link, 'local'),
            'operational_space': lambda: robot.operational_space(q, qd, link).Lambda,
            'batch': lambda: robot.inverse_dynamics(np.stack([q, q]), np.stack([qd, qdd]),
                                                    np.stack([qdd, qd]), wrench),
        }
        for name, call in calls.items():
            try:
                value = call()
            except SingularMassMatrixError:
                continue
            if not np.all(np.isfinite(np.asarray(value, dtype=float))):
                bad.append(name)
    return bad


def run_urdf_case(seed: int) -> dict:
    """Mutate one URDF (chosen by the seed), load it and check its algorithms."""
    from ros_dynamics import RobotModel, URDFError
    rng = np.random.default_rng([1, seed])
    sources = urdf_sources()
    path = sources[seed % len(sources)]
    with open(path, encoding='utf-8') as stream:
        text, mutations = mutate(stream.read(), rng)
    case = {'source': os.path.basename(path), 'mutations': mutations}
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        try:
            robot = RobotModel.from_urdf_string(text)
        except URDFError as error:
            message = str(error)
            clean = bool(message) and '\n' not in message.strip()
            return dict(case, outcome='URDFError' if clean else 'defect',
                        detail=message[:300])
        except Exception as error:   # any other type is what is looked for
            return dict(case, outcome='defect', detail=f'{type(error).__name__}: {error}'[:300],
                        trace=traceback.format_exc()[-1500:])
        try:
            robot.warm_up()
            bad = evaluate(robot, rng)
        except Exception as error:
            return dict(case, outcome='defect', detail=f'{type(error).__name__}: {error}'[:300],
                        trace=traceback.format_exc()[-1500:])
    if bad:
        return dict(case, outcome='defect', detail=f'non-finite results: {", ".join(bad)}')
    return dict(case, outcome='loaded+finite')


# ---------------------------------------------------------------------------- API arguments
API_ROBOTS = ('urdf/panda_arm.urdf', 'urdf/planar_2r.urdf',
              'panda_description/urdf/panda.urdf',            # mimic fingers (dense FD)
              '<robot name="none"><link name="a"/></robot>')  # no joints
_robots = {}


def api_robot(name: str):
    """Return (and keep) one of the API fuzzer's robots."""
    if name not in _robots:
        from ros_dynamics import RobotModel
        if name.startswith('<'):
            _robots[name] = RobotModel.from_urdf_string(name)
        elif name.startswith('urdf/'):
            _robots[name] = RobotModel.from_urdf_file(os.path.join(ROOT, name))
        else:
            path = next(p for p in urdf_sources() if p.endswith(name))
            _robots[name] = RobotModel.from_urdf_file(path)
    return _robots[name]


def _unaligned(a: np.ndarray) -> np.ndarray:
    buffer = bytearray(a.nbytes + 1)
    out = np.ndarray(a.shape, np.float64, buffer=buffer, offset=1)
    out[...] = a
    return out


def _read_only(a: np.ndarray) -> np.ndarray:
    a = a.copy()
    a.setflags(write=False)
    return a


# argument variants: name -> (expected, make(good array) -> argument); expected 'ok' (the
# call must give the float64 copy's result), 'type' or 'value' (the call must refuse)
VARIANTS = {
    'float64': ('ok', lambda a: a),
    'list': ('ok', lambda a: a.tolist()),
    'tuple': ('ok', lambda a: tuple(a.tolist()) if a.ndim == 1 else a.tolist()),
    'float32': ('ok', lambda a: a.astype(np.float32)),
    'longdouble': ('ok', lambda a: a.astype(np.longdouble)),
    'int': ('ok', lambda a: np.round(a).astype(np.int32)),
    'bool': ('ok', lambda a: a > 0),
    'strided': ('ok', lambda a: np.repeat(a, 2, axis=-1)[..., ::2]),
    'reversed twice': ('ok', lambda a: a[..., ::-1].copy()[..., ::-1]),
    'fortran': ('ok', lambda a: np.asfortranarray(a)),
    'unaligned': ('ok', _unaligned),
    'read-only': ('ok', _read_only),
    'byte-swapped': ('ok', lambda a: a.astype('>f8')),
    'masked, nothing masked': ('ok', lambda a: np.ma.masked_array(a, mask=False)),
    'huge finite': ('ok', lambda a: a * 1e300),
    'subnormal': ('ok', lambda a: a * 1e-310),
    'nan': ('value', lambda a: np.where(np.arange(a.size).reshape(a.shape) == a.size // 2,
                                        np.nan, a) if a.size else np.array([np.nan])),
    'inf': ('value', lambda a: np.full(a.shape if a.size else (1,), -np.inf)),
    'complex': ('type', lambda a: a + 1j),
    'object': ('type', lambda a: a.astype(object) if a.size else np.array([None])),
    'str': ('type', lambda a: a.astype(str) if a.size else np.array(['x'])),
    'bytes': ('type', lambda a: a.astype(bytes) if a.size else np.array([b'x'])),
    'datetime': ('type', lambda a: np.zeros(a.shape, 'datetime64[s]') if a.size
                 else np.array(['2020'], 'datetime64[s]')),
    'masked': ('type', lambda a: np.ma.masked_array(a, mask=np.ones(a.shape, bool))
               if a.size else np.ma.masked_array([0.0], mask=[True])),
    'None': ('type', lambda a: None),
    'scalar': ('value', lambda a: 0.5),
    'too long': ('value', lambda a: np.zeros(a.shape[:-1] + (a.shape[-1] + 1,))),
    '3-D': ('value', lambda a: a[None, None]),
    'ragged': ('value', lambda a: [[0.0], [0.0, 1.0]]),
    'dict': ('type', lambda a: {'q': 1.0}),
    'huge batch': ('value', lambda a: np.broadcast_to(np.zeros(a.shape[-1]),
                                                      (10 ** 12, a.shape[-1]))),
}
OK_VARIANTS = [name for name, (expected, _) in VARIANTS.items() if expected == 'ok']
# method -> (state arguments, takes batches, takes a link)
METHODS = {
    'inverse_dynamics': (3, True, False), 'forward_dynamics': (3, True, False),
    'gravity_torques': (1, True, False), 'bias_torques': (2, True, False),
    'mass_matrix': (1, True, False), 'coriolis_matrix': (2, True, False),
    'kinetic_energy': (2, True, False), 'potential_energy': (1, True, False),
    'all_joint_positions': (1, True, False), 'link_pose': (1, False, True),
    'jacobian': (1, True, True), 'jacobian_dot_qd': (2, False, True),
    'operational_space': (2, False, True),
}
BAD_LINKS = [None, 3, ['a'], '', 'ghost', b'x']


def _result(value):
    """Return a call's result as something np.array_equal compares."""
    if hasattr(value, 'Lambda'):
        return np.concatenate([value.Lambda.ravel(), value.J.ravel(), value.mu, value.p])
    return np.asarray(value, dtype=float)


def run_api_case(seed: int) -> dict:
    """Call one public method with fuzzed arguments; compare with contiguous float64 copies."""
    from ros_dynamics.exceptions import SingularMassMatrixError
    rng = np.random.default_rng([2, seed])
    robot_name = API_ROBOTS[int(rng.integers(len(API_ROBOTS)))]
    robot = api_robot(robot_name)
    method = str(rng.choice(sorted(METHODS)))
    inputs, batches, takes_link = METHODS[method]
    dof = robot.dof
    batch = int(rng.choice([0, 1, 3, 40])) if batches and rng.random() < 0.4 else None
    shape = (dof,) if batch is None else (batch, dof)
    good = [rng.uniform(-1.5, 1.5, shape) for _ in range(inputs)]
    names = []
    arguments = []
    expected = 'ok'
    for k, array in enumerate(good):
        variant = (str(rng.choice(list(VARIANTS))) if rng.random() < 0.6
                   else str(rng.choice(OK_VARIANTS)))
        kind, make = VARIANTS[variant]
        argument = make(array)
        names.append(variant)
        arguments.append(argument)
        if variant in ('list', 'tuple') and array.ndim == 2 and array.size == 0:
            expected = 'either'   # [] or [[], []]: the batch shape is lost in a list
        elif variant == 'huge batch' and dof == 0:
            expected = 'either'   # (10**12, 0): a valid batch of nothing
        elif kind != 'ok' and expected != 'either':
            expected = 'refuse'
    link = None
    extra = {}
    if takes_link:
        link = robot.link_names[int(rng.integers(len(robot.link_names)))]
        if rng.random() < 0.15:
            link = BAD_LINKS[int(rng.integers(len(BAD_LINKS)))]
            expected = 'refuse'
    if method in ('inverse_dynamics', 'forward_dynamics') and rng.random() < 0.3:
        target = robot.link_names[int(rng.integers(len(robot.link_names)))]
        wrench = rng.uniform(-5.0, 5.0, 6)
        if rng.random() < 0.2:   # seven numbers, or an unknown link
            if rng.random() < 0.5:
                wrench = np.append(wrench, 1.0)
            else:
                target = 'ghost'
            expected = 'refuse'
        extra['external_wrenches'] = {target: wrench}
    if method == 'jacobian' and rng.random() < 0.5:
        extra['frame'] = str(rng.choice(['local', 'world', 'world_aligned', 'body']))
        if extra['frame'] == 'body':
            expected = 'refuse'
    label = robot_name.split('/')[-1] if '/' in robot_name else 'no joints'
    case = {'robot': label, 'method': method, 'batch': batch,
            'variants': names, 'link': repr(link), 'extra': sorted(extra)}
    call = getattr(robot, method)

    def invoke(states):
        return call(*states, link, **extra) if takes_link else call(*states, **extra)
    try:
        with warnings.catch_warnings():   # a ComplexWarning (truncation) is a defect
            warnings.simplefilter('error', np.exceptions.ComplexWarning)
            warnings.simplefilter('ignore', RuntimeWarning)   # huge values may overflow
            value = invoke(arguments)
    except SingularMassMatrixError:
        return dict(case, outcome='refused')
    except (TypeError, ValueError) as error:
        if 'huge finite' in names and 'overflowed' in str(error):
            return dict(case, outcome='refused')
        if expected == 'ok':
            return dict(case, outcome='defect', detail=f'refused good arguments: '
                        f'{type(error).__name__}: {error}'[:300])
        return dict(case, outcome='refused')
    except Exception as error:   # any other type is what is looked for
        return dict(case, outcome='defect', detail=f'{type(error).__name__}: {error}'[:300],
                    trace=traceback.format_exc()[-1500:])
    if expected == 'refuse':
        return dict(case, outcome='defect', detail='accepted invalid arguments')
    copies = [np.array(np.asarray(a), dtype=np.float64, order='C') for a in arguments]
    with warnings.catch_warnings():
        warnings.simplefilter('ignore', RuntimeWarning)
        reference = invoke(copies)
    if not np.array_equal(_result(value), _result(reference), equal_nan=True):
        return dict(case, outcome='defect', detail='result differs from the float64 copy')
    if 'huge finite' not in names and not np.all(np.isfinite(_result(value))):
        return dict(case, outcome='defect', detail='non-finite result of sane arguments')
    return dict(case, outcome='same result')


# ---------------------------------------------------------------------------- rollouts
ROLLOUT_ROBOTS = ('urdf/panda_arm.urdf', 'urdf/planar_2r.urdf',
                  'ur_description/urdf/ur5_robot.urdf', 'panda_description/urdf/panda.urdf')


def rollout_robot(name: str, armature: np.ndarray):
    """Return a fresh model of ``name`` without mimic joints (ABA: the lanes path)."""
    from ros_dynamics import RobotModel
    path = (os.path.join(ROOT, name) if name.startswith('urdf/')
            else next(p for p in urdf_sources() if p.endswith(name)))
    robot = RobotModel.from_urdf_file(path, mimic=False)
    robot.armature = armature[:robot.dof]
    return robot


def simulator_rows(robot, q0, qd0, efforts, options: dict) -> tuple:
    """Return (q, qd) (B, steps + 1, dof) of one Simulator per row, NaN after a refusal."""
    from ros_dynamics.simulation.simulator import SimulationDiverged, Simulator
    batch, steps, dof = efforts.shape
    q, qd = np.full((batch, steps + 1, dof), np.nan), np.full((batch, steps + 1, dof), np.nan)
    for b in range(batch):
        sim = Simulator(robot, q0=q0[b], qd0=qd0[b], **options)
        q[b, 0], qd[b, 0] = sim.q, sim.qd
        for k in range(steps):
            sim.set_effort(efforts[b, k])
            try:
                sim.step()
            except SimulationDiverged:
                break
            q[b, k + 1], qd[b, k + 1] = sim.q, sim.qd
    return q, qd


def run_rollout_case(seed: int) -> dict:
    """Roll out a small random batch; compare with separate Simulator runs, bit for bit."""
    from ros_dynamics.rollouts import rollout
    rng = np.random.default_rng([3, seed])
    name = ROLLOUT_ROBOTS[int(rng.integers(len(ROLLOUT_ROBOTS)))]
    armature = (rng.choice([0.0, 1e-3, 0.05, 0.5], 12) if rng.random() < 0.5
                else np.zeros(12))
    robot = rollout_robot(name, armature)
    batch, steps, dof = int(rng.integers(1, 12)), int(rng.integers(1, 40)), robot.dof
    options = {'dt': float(rng.choice([1e-3, 5e-3, 2e-2])),
               'integrator': str(rng.choice(['rk4', 'semi_implicit_euler'])),
               'damping': bool(rng.random() < 0.5), 'friction': bool(rng.random() < 0.5),
               'limits': bool(rng.random() < 0.5)}
    speed = float(rng.choice([0.0, 1.0, 20.0, 1e3]))
    q0 = rng.uniform(-3.0, 3.0, (batch, dof))
    qd0 = rng.uniform(-speed, speed, (batch, dof))
    scale = rng.choice([0.0, 5.0, 500.0], (batch, 1, 1))   # free swings to saturation
    efforts = rng.uniform(-1.0, 1.0, (batch, steps, dof)) * scale
    if rng.random() < 0.3:
        efforts[rng.integers(batch), rng.integers(steps), rng.integers(dof)] = np.nan
    case = {'robot': name.split('/')[-1], 'batch': batch, 'steps': steps,
            'armature': bool(np.any(armature[:dof])), 'speed': speed, **options}
    with warnings.catch_warnings():
        warnings.simplefilter('ignore', RuntimeWarning)
        try:
            q, qd = rollout(robot, q0, qd0, efforts, allow_divergence=True,
                            threads=int(rng.integers(1, 3)), **options)
        except Exception as error:   # a refusal is NaN rows, never an exception
            return dict(case, outcome='defect', detail=f'{type(error).__name__}: {error}'[:300],
                        trace=traceback.format_exc()[-1500:])
        expected_q, expected_qd = simulator_rows(robot, q0, qd0, efforts, options)
    if not (np.array_equal(q, expected_q, equal_nan=True)
            and np.array_equal(qd, expected_qd, equal_nan=True)):
        same = (q == expected_q) | (np.isnan(q) & np.isnan(expected_q))
        rows = sorted({int(b) for b in np.argwhere(~same)[:, 0]})
        return dict(case, outcome='defect', detail=f'rows {rows} differ from Simulator runs')
    refused = int(np.sum(np.isnan(q[:, -1, 0])))
    return dict(case, outcome='all ran through' if refused == 0 else 'some refused')


RUNNERS = {'urdf': run_urdf_case, 'api': run_api_case, 'rollout': run_rollout_case}


# ---------------------------------------------------------------------------- workers
def worker_main() -> None:
    """Answer JSON lines {kind, seed} on stdin with one JSON outcome line each."""
    for line in sys.stdin:
        request = json.loads(line)
        try:
            answer = RUNNERS[request['kind']](request['seed'])
        except Exception as error:   # a fault of the fuzzer itself
            answer = {'outcome': 'defect', 'detail': f'fuzzer: {type(error).__name__}: '
                      f'{error}', 'trace': traceback.format_exc()[-1500:]}
        answer['seed'] = request['seed']
        sys.stdout.write(json.dumps(answer) + '\n')
        sys.stdout.flush()


class Worker:
    """A child interpreter running worker_main, replaced after a crash or a hang."""

    def __init__(self) -> None:
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(
            [ROOT, HERE] + [p for p in [os.environ.get('PYTHONPATH')] if p]))
        self.process = subprocess.Popen(
            [sys.executable, os.path.abspath(__file__), 'worker'], stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env, text=True,
            encoding='utf-8', errors='replace')
        self.kind = self.seed = None
        self.started = 0.0

    def send(self, kind: str, seed: int) -> None:
        self.kind, self.seed, self.started = kind, seed, time.monotonic()
        self.process.stdin.write(json.dumps({'kind': kind, 'seed': seed}) + '\n')
        self.process.stdin.flush()

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait()


def run_cases(kind: str, seeds, workers: int = 2) -> list:
    """Run the cases ``seeds`` of ``kind`` on a pool of workers; return their outcomes."""
    pending = list(seeds)[::-1]
    pool = [Worker() for _ in range(max(1, min(workers, len(pending))))]
    idle = list(pool)
    busy = {}
    results = []
    try:
        while pending or busy:
            while idle and pending:
                worker = idle.pop()
                worker.send(kind, pending.pop())
                busy[worker.process.stdout.fileno()] = worker
            ready, _, _ = select.select(list(busy), [], [], 1.0)
            for fd in ready:
                worker = busy.pop(fd)
                line = worker.process.stdout.readline()
                if line:
                    results.append(json.loads(line))
                    idle.append(worker)
                    continue
                worker.stop()
                results.append({'seed': worker.seed, 'outcome': 'crash',
                                'detail': f'worker exit code {worker.process.returncode}'})
                idle.append(Worker())
            now = time.monotonic()
            for fd, worker in list(busy.items()):
                if now - worker.started > CASE_SECONDS:
                    del busy[fd]
                    worker.stop()
                    results.append({'seed': worker.seed, 'outcome': 'hang',
                                    'detail': f'no answer in {CASE_SECONDS} s'})
                    idle.append(Worker())
    finally:
        for worker in idle + list(busy.values()):
            worker.stop()
    return results


def summarize(title: str, results: list) -> str:
    """Return the one-line count per outcome class, also appended to $ROS_DYNAMICS_FUZZ_SUMMARY."""
    counts = {}
    for result in results:
        counts[result['outcome']] = counts.get(result['outcome'], 0) + 1
    defects = sum(counts.get(k, 0) for k in DEFECTS)
    line = (f'{title}: {len(results)} cases, '
            + ', '.join(f'{n} {k}' for k, n in sorted(counts.items()) if k not in DEFECTS)
            + f', {defects} defects')
    path = os.environ.get('ROS_DYNAMICS_FUZZ_SUMMARY')
    if path:
        with open(path, 'a', encoding='utf-8') as stream:
            stream.write(line + '\n')
    return line


if __name__ == '__main__':
    sys.path[:0] = [ROOT, HERE]
    if sys.argv[1:] == ['worker']:
        worker_main()
    else:   # reproduce one case: python test/fuzzing.py urdf 17
        print(json.dumps(RUNNERS[sys.argv[1]](int(sys.argv[2])), indent=1))
