# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
Fuzzing of the core, a small budget on every test run (``make fuzz``: 20 times more).

Each test runs seeded cases in child workers (test/fuzzing.py) and fails on
any defect: an exception other than the documented ones, a crash, a hang,
a non-finite result of sane input or a result that differs from the same
call on contiguous float64 copies. Budget: ``ROS_DYNAMICS_FUZZ_SCALE``
(default 1) times the base count; the counts per outcome class go to
``$ROS_DYNAMICS_FUZZ_SUMMARY`` when set.
"""

import fuzzing
import pytest

pytestmark = pytest.mark.fuzz


def check(title: str, kind: str, base: int) -> None:
    results = fuzzing.run_cases(kind, range(int(base * fuzzing.SCALE)))
    line = fuzzing.summarize(title, results)
    print(line)
    defects = [r for r in results if r['outcome'] in fuzzing.DEFECTS]
    assert not defects, line + '\n' + '\n'.join(
        f'{kind} seed {r["seed"]} (python test/fuzzing.py {kind} {r["seed"]}): {r}'
        for r in defects[:10])


def test_urdf_mutations_give_a_urdf_error_or_a_finite_model():
    check('urdf mutations', 'urdf', 120)


def test_api_arguments_are_refused_or_give_the_float64_result():
    check('core API arguments', 'api', 300)


def test_rollouts_in_lanes_equal_separate_simulator_runs():
    check('rollouts in lanes', 'rollout', 40)
