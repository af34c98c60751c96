# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
The simulator node's schedule without ROS (ros_dynamics.simulation.runner), on a fake clock.

A real Simulator of the 2R arm (urdf/planar_2r.urdf) under SimRunner, whose clock only moves
when the runner sleeps or waits: blocks end where publishes are due, the command timeout drops
the effort at the step a step-by-step loop drops it, pacing holds absolute deadlines, and
lockstep advances only after the answers, re-asks for a new participant, pauses after its
timeout.
"""

import os
import re

import numpy as np
import pytest
from ros_dynamics import RobotModel
from ros_dynamics.simulation.runner import MAX_BLOCK_STEPS, MAX_LAG, Outputs, SimRunner
from ros_dynamics.simulation.schedule import Schedule, ScheduleError
from ros_dynamics.simulation.simulator import Simulator

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
Q0 = np.array([0.3, -0.4])


class FakeClock:
    """Wall time that moves only when the runner sleeps or waits (s)."""

    def __init__(self) -> None:
        self.t = 1000.0
        self.sleeps = []
        self.on_wait = None      # called at each wait, before the event is looked at

    def now(self) -> float:
        return self.t

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.t += seconds

    def wait(self, event, seconds: float) -> bool:
        if self.on_wait is not None:
            self.on_wait()
        if event.is_set():
            return True
        self.t += seconds
        return event.is_set()


class Recorder:
    """The runner's outputs: what went out, at which step, and the log."""

    def __init__(self) -> None:
        self.runner = None
        self.states, self.clocks, self.logs = [], [], []
        self.participants = 1
        self.answers = 0          # commands sent back for each state (lockstep's controllers)
        self.stop_after = None    # states after which the loop stops

    def outputs(self) -> Outputs:
        return Outputs(publish_state=self.state, publish_clock=self.clock,
                       participants=lambda: self.participants,
                       log=lambda level, text: self.logs.append((level, text)))

    def state(self) -> None:
        runner = self.runner
        self.states.append(runner.steps)
        for _ in range(self.answers):
            runner.accept_effort(np.array([0.5, -0.2]))
        if self.stop_after is not None and len(self.states) >= self.stop_after:
            runner.stop()

    def clock(self) -> None:
        self.clocks.append(self.runner.steps)


@pytest.fixture(scope='module')
def two_r():
    return RobotModel.from_urdf_file(os.path.join(ROOT, 'urdf', 'planar_2r.urdf'))


def runner_for(two_r, **schedule) -> tuple:
    recorder, clock = Recorder(), FakeClock()
    runner = SimRunner(Schedule(**schedule), recorder.outputs(), clock)
    recorder.runner = runner
    runner.load(Simulator(two_r, dt=schedule.get('dt', 0.001), q0=Q0))
    return runner, recorder, clock


def stepped(two_r, efforts: list) -> Simulator:
    """Return the reference: one step at a time, the given effort before each step."""
    sim = Simulator(two_r, dt=0.001, q0=Q0)
    for effort in efforts:
        sim.set_effort(effort)
        sim.step(1)
    return sim


def test_blocks_end_where_the_publishes_are_due(two_r):
    """Paced at real time: joint_states every 10 steps, /clock every 4; the same trajectory."""
    runner, recorder, _ = runner_for(two_r, publish_rate=100.0, clock_period=0.004)
    ends = []
    while runner.steps < 40:
        assert runner.run_block()[:2] == (True, True)
        ends.append(runner.steps)
    assert ends == [4, 8, 10, 12, 16, 20, 24, 28, 30, 32, 36, 40]
    assert recorder.states == [10, 20, 30, 40]
    assert recorder.clocks == [4, 8, 12, 16, 20, 24, 28, 32, 36, 40]
    reference = stepped(two_r, [np.zeros(2)] * 40)
    assert runner.sim.t == pytest.approx(0.040, abs=1e-12)
    np.testing.assert_allclose(runner.sim.q, reference.q, rtol=0, atol=1e-12)
    np.testing.assert_allclose(runner.sim.qd, reference.qd, rtol=0, atol=1e-12)


def test_the_command_timeout_drops_the_effort_at_the_step(two_r):
    """Timeout 10.5 ms: 11 steps with the effort (t - t_command <= timeout), then zero."""
    runner, recorder, _ = runner_for(two_r, real_time_factor=0.0, command_timeout=0.0105)
    effort = np.array([2.0, -1.0])
    with runner.lock:
        runner.accept_effort(effort)
        assert runner.advance(30)     # one call: blocks split where the effort drops
    reference = stepped(two_r, [effort] * 11 + [np.zeros(2)] * 19)
    np.testing.assert_allclose(runner.sim.q, reference.q, rtol=0, atol=1e-12)
    np.testing.assert_allclose(runner.sim.qd, reference.qd, rtol=0, atol=1e-12)
    assert np.all(runner.sim.effort == 0) and runner.timed_out
    assert [level for level, _ in recorder.logs] == ['warning']
    assert 'no command for 0.0105 s of sim time' in recorder.logs[0][1]
    with runner.lock:
        runner.accept_effort(effort)
    assert not runner.timed_out and recorder.logs[-1] == ('info', 'commands resumed')


def test_hold_until_command_keeps_the_joints_until_the_first_command(two_r):
    runner, recorder, _ = runner_for(two_r, hold_until_command=True)
    with runner.lock:
        runner.advance(20)
        assert runner.holding and runner.sim.t == pytest.approx(0.020)
        np.testing.assert_array_equal(runner.sim.q, Q0)
        runner.accept_effort(np.zeros(2))
        runner.advance(5)
    assert not runner.holding and np.any(runner.sim.q != Q0)   # gravity pulls it down
    assert recorder.logs == [('info', 'first command received: joints released')]


@pytest.mark.parametrize('factor', [1.0, 0.5])
def test_pacing_holds_absolute_deadlines(two_r, factor):
    """Each block ends at anchor + (t - t_anchor) / real_time_factor of wall time, no drift."""
    runner, recorder, clock = runner_for(two_r, real_time_factor=factor, publish_rate=100.0,
                                         publish_clock=False)
    start = clock.t
    recorder.stop_after = 8
    runner.loop()
    assert recorder.states == [10, 20, 30, 40, 50, 60, 70, 80]
    # the first block anchors the deadlines at its end; 70 more steps of 1 ms follow
    assert clock.t - start == pytest.approx(0.070 / factor, abs=1e-9)
    assert clock.sleeps == pytest.approx([0.010 / factor] * 7, abs=1e-9)


def test_pacing_reanchors_after_a_stall_instead_of_racing(two_r):
    runner, recorder, clock = runner_for(two_r, publish_rate=100.0, publish_clock=False)
    anchor = runner.pace(None, 0.0)
    clock.t += 2 * MAX_LAG                    # a stall: far behind the deadline of t = 0.01
    anchor = runner.pace(anchor, 0.010)
    assert anchor == (clock.t, 0.010) and clock.sleeps == []
    runner.pace(anchor, 0.020)
    assert clock.sleeps == pytest.approx([0.010])


def test_faster_than_real_time_publishes_per_wall_period(two_r):
    """real_time_factor 0: blocks of up to MAX_BLOCK_STEPS; a state at most per 1/rate wall s."""
    runner, recorder, clock = runner_for(two_r, real_time_factor=0.0, publish_rate=100.0)
    blocks = []
    for _ in range(30):
        before = runner.steps
        runner.run_block()
        blocks.append(runner.steps - before)
    # the blocks grow to about 1 ms of wall time at the measured step time (0 on this clock)
    assert blocks[0] == 1 and blocks[-1] == MAX_BLOCK_STEPS
    assert len(recorder.states) == 1          # the fake wall clock did not move
    clock.t += 0.010
    runner.run_block()
    assert len(recorder.states) == 2


def test_the_step_service_publishes_the_last_clock(two_r):
    runner, recorder, _ = runner_for(two_r, publish_rate=100.0, clock_period=0.004)
    with runner.lock:
        with pytest.raises(RuntimeError, match='only while paused'):
            runner.step(3)
        runner.set_paused(True)
        with pytest.raises(ValueError, match='steps must be >= 1'):
            runner.step(0)
        assert runner.step(7) == 7
    assert recorder.clocks == [4, 7] and recorder.states == []


def test_lockstep_advances_only_after_the_answers(two_r):
    runner, recorder, clock = runner_for(two_r, lockstep=True, control_period=0.005,
                                         lockstep_answers=2)
    recorder.answers = 2
    assert runner.lockstep_period() == (True, True, pytest.approx(0.005))
    assert runner.lockstep_period()[:2] == (True, True)
    assert recorder.states == [0, 5] and runner.steps == 10
    assert recorder.clocks == [0, 5]          # /clock first, with each question
    reference = stepped(two_r, [np.array([0.5, -0.2])] * 10)   # each answer drives its period
    np.testing.assert_allclose(runner.sim.q, reference.q, rtol=0, atol=1e-12)


def test_lockstep_pauses_after_its_timeout_and_asks_again_on_resume(two_r):
    runner, recorder, clock = runner_for(two_r, lockstep=True, lockstep_answers=2,
                                         lockstep_timeout=0.5)
    recorder.answers = 1                      # one controller of two answers
    start = clock.t
    assert runner.lockstep_period() == (False, False, 0.0)
    assert runner.steps == 0 and runner.paused
    assert runner.fault.startswith('lockstep: 1 of 2 commands for the state at t = 0.000000 s')
    assert clock.t - start == pytest.approx(0.5, abs=0.051)
    assert recorder.states == [0]             # asked once while waiting
    assert recorder.logs[-1][0] == 'error'
    with runner.lock:
        runner.set_paused(False)
    recorder.answers = 2
    assert runner.lockstep_period()[:2] == (True, True)
    assert recorder.states == [0, 0] and runner.steps == 1 and runner.fault == ''


def test_lockstep_asks_the_first_question_again_once_at_half_its_timeout(two_r):
    """The first state's copy a controller dropped (its reader not matched yet) is asked again."""
    runner, recorder, clock = runner_for(two_r, lockstep=True, lockstep_timeout=1.0)

    def answers_the_second_copy() -> None:
        if len(recorder.states) == 2 and runner.answers == 0:
            runner.accept_effort(np.zeros(2))
    clock.on_wait = answers_the_second_copy
    start = clock.t
    assert runner.lockstep_period()[:2] == (True, True)
    assert recorder.states == [0, 0] and runner.steps == 1
    assert clock.t - start == pytest.approx(0.5, abs=0.051)
    assert recorder.logs[-1][0] == 'info' and 'asked again' in recorder.logs[-1][1]


def test_lockstep_asks_a_later_question_once_and_pauses(two_r):
    """Once a period advanced, an unanswered state pauses after the timeout: no second copy."""
    runner, recorder, clock = runner_for(two_r, lockstep=True, lockstep_timeout=1.0)
    recorder.answers = 1
    assert runner.lockstep_period()[:2] == (True, True)
    recorder.answers = 0                      # the controller stops answering
    start = clock.t
    assert runner.lockstep_period() == (False, False, pytest.approx(0.001))
    assert runner.paused and recorder.states == [0, 1]
    assert clock.t - start == pytest.approx(1.0, abs=0.051)
    # after a resume the first question may be asked again, once: then the pause
    with runner.lock:
        runner.set_paused(False)
    assert runner.lockstep_period()[:2] == (False, False)
    assert recorder.states == [0, 1, 1, 1] and runner.paused


def test_lockstep_asks_again_when_a_participant_appears(two_r):
    runner, recorder, clock = runner_for(two_r, lockstep=True)
    waits = []

    def a_controller_starts() -> None:
        waits.append(clock.t)
        if len(waits) == 3:
            recorder.participants += 1        # a controller that started late
        if len(recorder.states) == 2:
            runner.accept_effort(np.zeros(2))   # it answers the state asked again
    clock.on_wait = a_controller_starts
    assert runner.lockstep_period()[:2] == (True, True)
    assert recorder.states == [0, 0] and runner.steps == 1


def test_answers_before_the_question_do_not_count(two_r):
    runner, recorder, clock = runner_for(two_r, lockstep=True, lockstep_timeout=0.2)
    with runner.lock:
        runner.accept_effort(np.zeros(2))     # before any state went out
    assert runner.lockstep_period() == (False, False, 0.0)
    assert runner.paused and runner.steps == 0


@pytest.mark.parametrize('schedule, named', [
    ({'dt': 0.0}, 'dt must be > 0'),
    ({'real_time_factor': -1.0}, 'real_time_factor must be >= 0'),
    ({'publish_rate': float('nan')}, 'publish_rate must be > 0'),
    ({'control_period': 0.0015}, 'control_period must be 0 (every step) or a multiple of dt'),
    ({'lockstep_answers': 0}, 'lockstep_answers must be >= 1'),
    ({'lockstep_timeout': 0.0}, 'lockstep_timeout must be > 0'),
])
def test_a_bad_schedule_names_the_parameter(schedule, named):
    with pytest.raises(ScheduleError, match=re.escape(named)):
        Schedule(**schedule)


def test_lockstep_starts_over_from_a_state_set_while_waiting(two_r):
    """~/set_state during the wait: no step on the old question; the new state is asked."""
    runner, recorder, clock = runner_for(two_r, lockstep=True)

    def a_service_sets_the_state() -> None:
        if len(recorder.states) == 1:
            recorder.answers = 1              # the controller answers the new question
            with runner.lock:
                runner.sim.set_state(Q0 + 0.1)
                runner.state_set()
    clock.on_wait = a_service_sets_the_state
    assert runner.lockstep_period() == (False, False, 0.0)
    assert runner.steps == 0 and recorder.states == [0, 0]
    assert runner.lockstep_period()[:2] == (True, True)   # answered: not asked a third time
    assert runner.steps == 1 and recorder.states == [0, 0]
