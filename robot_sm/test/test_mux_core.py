"""Rules of the robot control mux core, driven by a fake clock."""

import math
from typing import Any, List, Optional

from hypothesis import given, settings, strategies as st
import pytest

from robot_sm.mux import (
    AUTONOMY,
    ControlMux,
    InputStatistics,
    JoystickActivity,
    Level,
    Mode,
    MuxConfig,
    MuxState,
    TELEOPERATION,
    Velocity,
    ZERO,
)

FORWARD = Velocity(0.5, 0.0, 0.0, 0.0, 0.0, 0.2)
BACKWARD = Velocity(-0.3)
TURN = Velocity(angular_z=1.0)


class FakeClock:
    """Time that moves only when told to."""

    def __init__(self) -> None:
        self.now = 100.0

    def advance(self, seconds: float) -> float:
        self.now += seconds
        return self.now


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


def make_mux(clock: FakeClock, **config: Any) -> ControlMux:
    """Return a mux in STOPPED after an operator selected STOPPED (inputs may take over)."""
    mux = ControlMux(MuxConfig(**config), clock.now)
    assert mux.set_mode(Mode.STOPPED, clock.now).success
    return mux


def autonomous(clock: FakeClock, **config: Any) -> ControlMux:
    mux = make_mux(clock, **config)
    assert mux.set_mode(Mode.AUTONOMOUS, clock.now).success
    return mux


# Modes and output ---------------------------------------------------------------------------


def test_starts_stopped_with_zero_output_whatever_arrives(clock: FakeClock) -> None:
    mux = make_mux(clock)
    assert mux.state == MuxState(Mode.STOPPED, False)
    assert mux.command(AUTONOMY, FORWARD, clock.now) is None
    assert mux.tick(clock.advance(0.05)) == ZERO
    assert mux.active_source == 'none'


def test_autonomous_forwards_autonomy_at_once_and_each_tick(clock: FakeClock) -> None:
    mux = autonomous(clock)
    assert mux.command(AUTONOMY, FORWARD, clock.advance(0.01)) == FORWARD
    assert mux.tick(clock.advance(0.05)) == FORWARD
    assert mux.active_source == 'autonomy'


def test_inactive_source_is_not_published(clock: FakeClock) -> None:
    mux = autonomous(clock)
    assert mux.command(TELEOPERATION, ZERO, clock.now) is None  # zero: no takeover, not active
    assert mux.state.mode is Mode.AUTONOMOUS


def test_command_from_before_the_mode_change_does_not_move(clock: FakeClock) -> None:
    mux = make_mux(clock)
    mux.command(AUTONOMY, FORWARD, clock.now)
    mux.set_mode(Mode.AUTONOMOUS, clock.advance(0.01))
    assert mux.output(clock.now) == ZERO
    assert mux.command(AUTONOMY, BACKWARD, clock.advance(0.01)) == BACKWARD


def test_stopped_by_request_publishes_zero(clock: FakeClock) -> None:
    mux = autonomous(clock)
    mux.command(AUTONOMY, FORWARD, clock.now)
    assert mux.set_mode(Mode.STOPPED, clock.advance(0.01)).success
    assert mux.output(clock.now) == ZERO
    assert mux.command(AUTONOMY, FORWARD, clock.advance(0.01)) is None


def test_same_mode_request_changes_nothing(clock: FakeClock) -> None:
    mux = autonomous(clock)
    mux.command(AUTONOMY, FORWARD, clock.now)
    answer = mux.set_mode(Mode.AUTONOMOUS, clock.advance(0.01))
    assert answer.success and 'already' in answer.message
    assert mux.output(clock.now) == FORWARD


def test_unknown_mode_is_refused_and_changes_nothing(clock: FakeClock) -> None:
    mux = autonomous(clock)
    mux.command(AUTONOMY, FORWARD, clock.now)
    for request in (lambda: mux.set_mode(7, clock.now),
                    lambda: mux.set_operation_mode(3, False, clock.now)):
        answer = request()
        assert not answer.success
        assert 'unknown mode' in answer.message and 'AUTONOMOUS' in answer.message
        assert mux.state == MuxState(Mode.AUTONOMOUS, False)
        assert mux.output(clock.now) == FORWARD


# Staleness ----------------------------------------------------------------------------------


def test_stale_autonomy_is_zeroed(clock: FakeClock) -> None:
    mux = autonomous(clock, autonomy_timeout=0.5)
    mux.command(AUTONOMY, FORWARD, clock.now)
    assert mux.tick(clock.advance(0.5)) == FORWARD  # exactly at the timeout: still fresh
    assert mux.tick(clock.advance(0.001)) == ZERO
    assert mux.status(clock.now).level is Level.WARN
    assert mux.command(AUTONOMY, BACKWARD, clock.advance(0.01)) == BACKWARD


# Teleoperation takeover and idle timer ------------------------------------------------------


@pytest.mark.parametrize('start', [Mode.STOPPED, Mode.AUTONOMOUS])
def test_nonzero_teleop_takes_over(clock: FakeClock, start: Mode) -> None:
    mux = make_mux(clock)
    mux.set_mode(start, clock.now)
    mux.command(AUTONOMY, FORWARD, clock.now)
    assert mux.command(TELEOPERATION, TURN, clock.advance(0.01)) == TURN
    assert mux.state.mode is Mode.TELEOPERATION
    assert mux.command(AUTONOMY, FORWARD, clock.advance(0.01)) is None
    assert mux.tick(clock.now) == TURN


def test_zero_teleop_does_not_take_over(clock: FakeClock) -> None:
    mux = autonomous(clock)
    mux.command(AUTONOMY, FORWARD, clock.now)
    mux.command(TELEOPERATION, ZERO, clock.advance(0.01))
    assert mux.state.mode is Mode.AUTONOMOUS
    assert mux.tick(clock.now) == FORWARD


def test_timeout_falls_back_to_stopped(clock: FakeClock) -> None:
    mux = autonomous(clock, teleoperation_idle_timer=0.5)
    mux.command(TELEOPERATION, TURN, clock.now)
    assert mux.tick(clock.advance(0.49)).angular_z == 1.0
    assert mux.tick(clock.advance(0.01)) == ZERO
    assert mux.state == MuxState(Mode.STOPPED, False)
    assert 'idle' in mux.reason


def test_zero_teleop_does_not_extend_the_timer(clock: FakeClock) -> None:
    mux = make_mux(clock, teleoperation_idle_timer=0.5)
    start = clock.now
    mux.command(TELEOPERATION, TURN, start)
    while clock.now < start + 0.48:  # a joystick at rest keeps sending zeros at 50 Hz
        assert mux.command(TELEOPERATION, ZERO, clock.advance(0.02)) == ZERO
        assert mux.state.mode is Mode.TELEOPERATION
    clock.now = start + 0.5
    assert mux.tick(clock.now) == ZERO
    assert mux.state.mode is Mode.STOPPED


def test_nonzero_teleop_restarts_the_timer(clock: FakeClock) -> None:
    mux = make_mux(clock, teleoperation_idle_timer=0.5)
    mux.command(TELEOPERATION, TURN, clock.now)
    mux.command(TELEOPERATION, TURN, clock.advance(0.4))
    mux.tick(clock.advance(0.4))
    assert mux.state.mode is Mode.TELEOPERATION
    mux.tick(clock.advance(0.1))
    assert mux.state.mode is Mode.STOPPED


def test_timeout_falls_back_to_previous_mode(clock: FakeClock) -> None:
    mux = autonomous(clock, teleop_timeout_mode='previous')
    mux.command(AUTONOMY, FORWARD, clock.now)
    mux.command(TELEOPERATION, TURN, clock.advance(0.01))
    mux.command(AUTONOMY, FORWARD, clock.advance(0.01))  # arrives during teleoperation
    assert mux.tick(clock.advance(0.5)) == ZERO  # back in AUTONOMOUS; that command is old
    assert mux.state == MuxState(Mode.AUTONOMOUS, False)
    assert mux.command(AUTONOMY, BACKWARD, clock.advance(0.01)) == BACKWARD


def test_previous_mode_from_stopped_is_stopped(clock: FakeClock) -> None:
    mux = make_mux(clock, teleop_timeout_mode='previous')
    mux.command(TELEOPERATION, TURN, clock.now)
    mux.tick(clock.advance(0.6))
    assert mux.state.mode is Mode.STOPPED


def test_timeout_is_seen_by_the_next_event_not_only_the_tick(clock: FakeClock) -> None:
    mux = make_mux(clock)
    mux.command(TELEOPERATION, TURN, clock.now)
    assert mux.command(AUTONOMY, FORWARD, clock.advance(0.6)) == ZERO  # publish the stop now
    assert mux.state.mode is Mode.STOPPED


def test_teleoperation_selected_by_request_does_not_last_forever(clock: FakeClock) -> None:
    mux = make_mux(clock)
    assert mux.set_mode(Mode.TELEOPERATION, clock.now).success
    mux.tick(clock.advance(0.6))
    assert mux.state.mode is Mode.STOPPED


def test_leaving_teleoperation_by_request_cancels_the_timer(clock: FakeClock) -> None:
    mux = make_mux(clock)
    mux.command(TELEOPERATION, TURN, clock.now)
    mux.set_mode(Mode.AUTONOMOUS, clock.advance(0.1))
    mux.command(AUTONOMY, FORWARD, clock.advance(0.1))
    mux.command(AUTONOMY, FORWARD, clock.advance(0.4))  # past the old teleop deadline
    assert mux.tick(clock.now) == FORWARD
    assert mux.state.mode is Mode.AUTONOMOUS


# Emergency stop -----------------------------------------------------------------------------


@pytest.mark.parametrize('mode', list(Mode))
def test_estop_zeroes_output_in_every_mode(clock: FakeClock, mode: Mode) -> None:
    mux = make_mux(clock)
    mux.set_mode(mode, clock.now)
    mux.command(AUTONOMY, FORWARD, clock.advance(0.01))
    mux.command(TELEOPERATION, TURN if mode is Mode.TELEOPERATION else ZERO, clock.now)
    assert mux.engage('test', clock.advance(0.01)).success
    assert mux.state == MuxState(mode, True)
    assert mux.output(clock.now) == ZERO
    # Inputs change nothing while engaged: no takeover, nothing published, zero every tick.
    assert mux.command(AUTONOMY, FORWARD, clock.advance(0.01)) is None
    assert mux.command(TELEOPERATION, TURN, clock.advance(0.01)) is None
    assert mux.state == MuxState(mode, True)
    for _ in range(30):
        assert mux.tick(clock.advance(0.05)) == ZERO
    assert mux.state == MuxState(mode, True)  # no idle fallback while engaged either
    assert mux.status(clock.now).level is Level.ERROR


def test_mode_changes_are_refused_while_engaged(clock: FakeClock) -> None:
    mux = autonomous(clock)
    mux.engage('test', clock.now)
    for mode in Mode:
        answer = mux.set_mode(mode, clock.now)
        assert not answer.success and 'refused' in answer.message
        answer = mux.set_operation_mode(mode, True, clock.now)
        if mode is Mode.AUTONOMOUS:  # repeating the engaging request is no change
            assert answer.success and 'already engaged' in answer.message
        else:
            assert not answer.success and 'refused' in answer.message
        assert mux.state == MuxState(Mode.AUTONOMOUS, True)


def test_engaging_twice_keeps_the_first_reason(clock: FakeClock) -> None:
    mux = make_mux(clock)
    mux.engage('first', clock.now)
    answer = mux.engage('second', clock.now)
    assert answer.success and 'already' in answer.message
    assert mux.emergency_stop_reason == 'first'


def test_release_goes_to_stopped_and_needs_a_mode_and_a_fresh_command(clock: FakeClock) -> None:
    mux = autonomous(clock)
    mux.command(AUTONOMY, FORWARD, clock.now)
    mux.engage('test', clock.advance(0.01))
    answer = mux.release(clock.advance(0.01))
    assert answer.success and 'STOPPED' in answer.message
    assert mux.state == MuxState(Mode.STOPPED, False)
    # The planner keeps streaming: nothing moves in STOPPED.
    for _ in range(10):
        assert mux.command(AUTONOMY, FORWARD, clock.advance(0.02)) is None
        assert mux.tick(clock.now) == ZERO
    mux.set_mode(Mode.AUTONOMOUS, clock.advance(0.001))
    assert mux.tick(clock.now) == ZERO  # the command from before the mode change is not used
    assert mux.command(AUTONOMY, FORWARD, clock.advance(0.02)) == FORWARD


def test_release_when_not_engaged_changes_nothing(clock: FakeClock) -> None:
    mux = autonomous(clock)
    answer = mux.release(clock.now)
    assert answer.success and 'not engaged' in answer.message
    assert mux.state == MuxState(Mode.AUTONOMOUS, False)


def test_teleop_stream_through_the_estop_does_not_take_over_after_release(
        clock: FakeClock) -> None:
    mux = make_mux(clock)
    mux.command(TELEOPERATION, TURN, clock.now)
    mux.engage('test', clock.advance(0.02))
    for _ in range(10):
        mux.command(TELEOPERATION, TURN, clock.advance(0.02))
    mux.release(clock.advance(0.01))
    for _ in range(10):  # the stick is still deflected (or the publisher is stuck)
        assert mux.command(TELEOPERATION, TURN, clock.advance(0.02)) is None
    assert mux.state.mode is Mode.STOPPED
    mux.command(TELEOPERATION, ZERO, clock.advance(0.02))  # the operator lets go ...
    assert mux.command(TELEOPERATION, TURN, clock.advance(0.02)) == TURN  # ... and drives again
    assert mux.state.mode is Mode.TELEOPERATION


def test_teleop_after_a_pause_takes_over_after_release(clock: FakeClock) -> None:
    mux = make_mux(clock)
    mux.command(TELEOPERATION, TURN, clock.now)
    mux.engage('test', clock.advance(0.02))
    mux.release(clock.advance(1.0))
    assert mux.command(TELEOPERATION, TURN, clock.advance(0.02)) == TURN


def test_set_operation_mode_engages_with_the_requested_mode(clock: FakeClock) -> None:
    mux = autonomous(clock)
    answer = mux.set_operation_mode(Mode.STOPPED, True, clock.now)
    assert answer.success
    assert mux.state == MuxState(Mode.STOPPED, True)
    assert mux.set_operation_mode(Mode.STOPPED, True, clock.now).success  # repeated: fine


def test_a_mode_request_never_releases_the_estop(clock: FakeClock) -> None:
    mux = autonomous(clock)
    mux.set_operation_mode(Mode.AUTONOMOUS, True, clock.now)
    mux.command(AUTONOMY, FORWARD, clock.advance(0.01))
    for mode in Mode:  # {mode: 1} leaves emergency_stop at its default, false
        answer = mux.set_operation_mode(mode, False, clock.advance(0.01))
        assert not answer.success
        assert 'does not release' in answer.message
        assert 'robot_sm/emergency_stop' in answer.message
        assert mux.state == MuxState(Mode.AUTONOMOUS, True)
    assert mux.command(AUTONOMY, FORWARD, clock.advance(0.01)) is None
    assert mux.output(clock.now) == ZERO
    assert mux.release(clock.now).success  # the deliberate reset
    assert mux.state == MuxState(Mode.STOPPED, False)


def test_unknown_mode_with_estop_still_engages(clock: FakeClock) -> None:
    mux = autonomous(clock)
    answer = mux.set_operation_mode(9, True, clock.now)
    assert not answer.success and 'unknown mode 9' in answer.message
    assert mux.state == MuxState(Mode.AUTONOMOUS, True)


def test_unknown_mode_does_not_release(clock: FakeClock) -> None:
    mux = make_mux(clock)
    mux.engage('test', clock.now)
    assert not mux.set_operation_mode(5, False, clock.now).success
    assert mux.state.emergency_stop


# Heartbeat watchdog -------------------------------------------------------------------------


def test_no_heartbeat_watchdog_by_default(clock: FakeClock) -> None:
    mux = make_mux(clock)
    mux.tick(clock.advance(3600.0))
    assert not mux.emergency_stop


def test_silent_heartbeat_engages_and_blocks_release(clock: FakeClock) -> None:
    mux = autonomous(clock, heartbeat_timeout=0.3)
    for _ in range(10):
        mux.heartbeat(False, clock.advance(0.1))
        mux.command(AUTONOMY, FORWARD, clock.now)
    assert mux.tick(clock.now) == FORWARD
    # The heartbeat stops: the next command already sees it and publishes zero.
    assert mux.command(AUTONOMY, FORWARD, clock.advance(0.31)) == ZERO
    assert mux.state == MuxState(Mode.AUTONOMOUS, True)
    assert 'heartbeat silent' in mux.emergency_stop_reason
    answer = mux.release(clock.advance(0.1))
    assert not answer.success and 'heartbeat' in answer.message
    assert mux.emergency_stop
    mux.heartbeat(False, clock.advance(0.1))
    assert mux.release(clock.now).success
    assert mux.state == MuxState(Mode.STOPPED, False)


def test_heartbeat_watchdog_counts_from_start(clock: FakeClock) -> None:
    mux = make_mux(clock, heartbeat_timeout=0.5)
    mux.tick(clock.advance(0.5))
    assert not mux.emergency_stop
    mux.tick(clock.advance(0.01))
    assert mux.emergency_stop


def test_heartbeat_true_engages(clock: FakeClock) -> None:
    mux = autonomous(clock, heartbeat_timeout=1.0)
    mux.command(AUTONOMY, FORWARD, clock.now)
    assert mux.heartbeat(True, clock.advance(0.1)) == ZERO
    assert mux.emergency_stop


# Joystick -----------------------------------------------------------------------------------


def joy_mux(clock: FakeClock) -> ControlMux:
    mux = autonomous(clock, joystick_used=True)
    mux.joystick([0.0, 0.0, 1.0], [0, 0], clock.now)  # rest: sticks centred, trigger at +1
    return mux


def test_joystick_axis_moving_away_from_rest_takes_over(clock: FakeClock) -> None:
    mux = joy_mux(clock)
    assert mux.joystick([0.04, 0.0, 1.0], [0, 0], clock.advance(0.05)) is None  # below threshold
    assert mux.joystick([0.2, 0.0, 1.0], [0, 0], clock.advance(0.05)) == ZERO
    assert mux.state.mode is Mode.TELEOPERATION


def test_joystick_trigger_at_rest_and_held_stick_are_not_activity(clock: FakeClock) -> None:
    mux = joy_mux(clock)
    for _ in range(5):
        assert mux.joystick([0.0, 0.0, 1.0], [0, 0], clock.advance(0.05)) is None
    assert mux.state.mode is Mode.AUTONOMOUS
    mux.joystick([0.0, 0.0, 0.5], [0, 0], clock.advance(0.05))  # trigger pressed
    assert mux.state.mode is Mode.TELEOPERATION
    mux.tick(clock.advance(0.5))
    assert mux.state.mode is Mode.STOPPED
    mux.set_mode(Mode.AUTONOMOUS, clock.now)
    mux.joystick([0.0, 0.0, 0.5], [0, 0], clock.advance(0.05))  # held still
    mux.joystick([0.0, 0.0, 0.8], [0, 0], clock.advance(0.05))  # returning to rest
    assert mux.state.mode is Mode.AUTONOMOUS


def test_joystick_button_rising_edge_takes_over_and_restarts_the_timer(clock: FakeClock) -> None:
    mux = joy_mux(clock)
    mux.joystick([0.0, 0.0, 1.0], [0, 1], clock.advance(0.05))
    assert mux.state.mode is Mode.TELEOPERATION
    mux.joystick([0.0, 0.0, 1.0], [0, 1], clock.advance(0.4))  # held: no new edge
    mux.joystick([0.0, 0.0, 1.0], [0, 0], clock.advance(0.05))
    mux.tick(clock.advance(0.05))
    assert mux.state.mode is Mode.STOPPED


def test_joystick_ignored_while_engaged(clock: FakeClock) -> None:
    mux = joy_mux(clock)
    mux.engage('test', clock.now)
    mux.joystick([1.0, 0.0, 1.0], [1, 1], clock.advance(0.05))
    assert mux.state == MuxState(Mode.AUTONOMOUS, True)


def test_joystick_with_nan_axis_is_dropped(clock: FakeClock) -> None:
    mux = joy_mux(clock)
    assert mux.joystick([math.nan, 0.0, 1.0], [1, 1], clock.advance(0.05)) is None
    assert mux.state.mode is Mode.AUTONOMOUS
    assert mux.inputs['joy'].dropped == 1


def test_joystick_activity_new_device_resets_rest() -> None:
    activity = JoystickActivity(0.05)
    assert not activity.update([0.0, 0.0], [0])
    assert not activity.update([0.5, 0.0, 0.0], [0, 0])  # another device: only sets rest
    assert activity.update([0.5, 0.3, 0.0], [0, 0])


# Sanitising ---------------------------------------------------------------------------------


@pytest.mark.parametrize('bad', [math.nan, math.inf, -math.inf])
def test_non_finite_commands_are_dropped_and_never_take_over(clock: FakeClock,
                                                             bad: float) -> None:
    mux = autonomous(clock)
    mux.command(AUTONOMY, FORWARD, clock.now)
    assert mux.command(AUTONOMY, Velocity(bad), clock.advance(0.01)) is None
    assert mux.command(TELEOPERATION, Velocity(0.0, 0.0, 0.0, 0.0, 0.0, bad), clock.now) is None
    assert mux.state.mode is Mode.AUTONOMOUS
    assert mux.tick(clock.now) == FORWARD  # the good command stands; NaN is not stored
    assert mux.inputs['autonomy'].dropped == 1
    assert mux.inputs['teleoperation'].dropped == 1
    assert mux.dropped == 2
    assert mux.inputs['autonomy'].received == 1
    status = mux.status(clock.now)
    assert status.level is Level.WARN and 'non-finite' in status.summary


def test_dropped_messages_do_not_refresh_staleness(clock: FakeClock) -> None:
    mux = autonomous(clock)
    mux.command(AUTONOMY, FORWARD, clock.now)
    for _ in range(10):
        mux.command(AUTONOMY, Velocity(math.nan), clock.advance(0.1))
    assert mux.tick(clock.now) == ZERO


def test_output_is_clamped_keeping_direction(clock: FakeClock) -> None:
    mux = autonomous(clock, max_linear_velocity=1.0, max_angular_velocity=0.5)
    out = mux.command(AUTONOMY, Velocity(3.0, 4.0), clock.now)
    assert out is not None
    assert math.hypot(out.linear_x, out.linear_y) == pytest.approx(1.0)
    assert out.linear_x / out.linear_y == pytest.approx(0.75)
    out = mux.command(AUTONOMY, Velocity(0.4, angular_z=2.0), clock.now)
    assert out is not None
    assert out.angular_z == pytest.approx(0.5) and out.linear_x == pytest.approx(0.1)
    assert mux.command(TELEOPERATION, Velocity(-5.0), clock.now) == Velocity(-1.0)


def test_zero_limit_means_no_clamp(clock: FakeClock) -> None:
    mux = autonomous(clock)
    big = Velocity(100.0, 0.0, 0.0, 0.0, 0.0, -50.0)
    assert mux.command(AUTONOMY, big, clock.now) == big


def test_velocity_is_immutable() -> None:
    velocity = Velocity(1.0)
    with pytest.raises(AttributeError):
        velocity.linear_x = 2.0  # type: ignore[misc]
    assert ZERO.is_zero() and not Velocity(math.nan).is_zero()


# Statistics and diagnostics -----------------------------------------------------------------


def test_input_statistics_age_rate_and_counts() -> None:
    stats = InputStatistics(window=1.0)
    assert stats.age(5.0) is None and stats.rate(5.0) == 0.0
    for i in range(51):
        stats.record(10.0 + i * 0.02)
    assert stats.rate(11.0) == pytest.approx(50.0)
    assert stats.age(11.5) == pytest.approx(0.5)
    assert stats.rate(12.5) == 0.0  # silent for longer than the window
    stats.drop(12.5)
    assert stats.dropped == 1 and stats.received == 51 and stats.dropped_recently(13.0)


def test_status_reports_real_values(clock: FakeClock) -> None:
    mux = autonomous(clock, joystick_used=True, heartbeat_timeout=1.0)
    for _ in range(20):
        mux.command(AUTONOMY, FORWARD, clock.advance(0.05))
        mux.heartbeat(False, clock.now)
    status = mux.status(clock.advance(0.1))
    assert status.level is Level.OK and status.active_source == 'autonomy'
    reports = {report.name: report for report in status.inputs}
    assert set(reports) == {'autonomy', 'teleoperation', 'joy', 'heartbeat', 'supervisor'}
    assert reports['autonomy'].rate == pytest.approx(20.0)
    assert reports['autonomy'].age == pytest.approx(0.1)
    assert reports['autonomy'].received == 20
    assert reports['teleoperation'].age is None


# Start: latched e-stop, no takeover until an operator selects a mode ------------------------


def test_a_latched_estop_starts_engaged(clock: FakeClock) -> None:
    mux = ControlMux(MuxConfig(), clock.now, emergency_stop_reason='latched before the restart')
    assert mux.state == MuxState(Mode.STOPPED, True)
    assert mux.emergency_stop_reason == 'latched before the restart'
    assert not mux.set_mode(Mode.AUTONOMOUS, clock.now).success
    assert mux.command(TELEOPERATION, TURN, clock.advance(0.02)) is None
    assert mux.tick(clock.advance(0.05)) == ZERO


def test_no_input_takes_over_before_an_operator_selects_a_mode(clock: FakeClock) -> None:
    mux = ControlMux(MuxConfig(joystick_used=True), clock.now)
    mux.joystick([0.0, 0.0], [0, 0], clock.now)
    for _ in range(50):  # a stuck teleop publisher and a joystick moving: nothing moves
        assert mux.command(TELEOPERATION, TURN, clock.advance(0.02)) is None
    assert mux.joystick([0.9, 0.0], [1, 0], clock.advance(0.02)) is None
    assert mux.state == MuxState(Mode.STOPPED, False)
    assert 'selects a mode' in mux.status(clock.now).summary
    assert mux.set_mode(Mode.STOPPED, clock.now).success  # STOPPED counts as the act
    # The stream that ran before the selection is treated like one that ran through an e-stop.
    for _ in range(10):
        assert mux.command(TELEOPERATION, TURN, clock.advance(0.02)) is None
    assert mux.state.mode is Mode.STOPPED
    mux.command(TELEOPERATION, ZERO, clock.advance(0.02))
    assert mux.command(TELEOPERATION, TURN, clock.advance(0.02)) == TURN
    assert mux.state.mode is Mode.TELEOPERATION


def test_a_stream_paused_before_the_selection_takes_over(clock: FakeClock) -> None:
    mux = ControlMux(MuxConfig(), clock.now)
    mux.command(TELEOPERATION, TURN, clock.now)
    mux.set_mode(Mode.AUTONOMOUS, clock.advance(1.0))
    assert mux.command(TELEOPERATION, TURN, clock.advance(0.02)) == TURN


def test_an_estop_request_with_a_mode_counts_as_the_selection(clock: FakeClock) -> None:
    mux = ControlMux(MuxConfig(), clock.now)
    assert mux.set_operation_mode(Mode.STOPPED, True, clock.now).success
    assert mux.operator_selected
    assert mux.release(clock.advance(0.1)).success
    assert mux.command(TELEOPERATION, TURN, clock.advance(0.02)) == TURN


# Unscalable commands --------------------------------------------------------------------------


@pytest.mark.parametrize('huge', [  # vector lengths beyond the float range
    Velocity(1.7e308, 1.7e308, 0.0, 0.0, 0.0, 0.0),
    Velocity(-1.7e308, 1.7e308, 1.7e308, 0.0, 0.0, 1.0),
    Velocity(0.1, 0.0, 0.0, 1.5e308, 1.5e308, 1.5e308),
])
def test_a_finite_command_too_large_to_scale_is_dropped(clock: FakeClock, huge: Velocity) -> None:
    mux = autonomous(clock, max_linear_velocity=0.5, max_angular_velocity=1.0)
    mux.command(AUTONOMY, FORWARD.limited(0.5, 1.0) or ZERO, clock.now)
    assert mux.command(AUTONOMY, huge, clock.advance(0.01)) is None
    assert mux.inputs['autonomy'].dropped == 1
    assert mux.command(TELEOPERATION, huge, clock.now) is None
    assert mux.state.mode is Mode.AUTONOMOUS  # it never takes over either


def test_a_large_command_that_can_be_scaled_is_scaled(clock: FakeClock) -> None:
    mux = autonomous(clock, max_linear_velocity=0.5, max_angular_velocity=1.0)
    out = mux.command(AUTONOMY, Velocity(1.7e308, angular_z=1.7e308), clock.now)
    assert out is not None and out.linear_x == pytest.approx(0.5)
    assert out.angular_z == pytest.approx(0.5)


# Supervisor watchdog --------------------------------------------------------------------------


def supervised(clock: FakeClock, **config: Any) -> ControlMux:
    mux = autonomous(clock, supervisor_timeout=0.5, **config)
    for _ in range(5):
        mux.supervisor_heartbeat(clock.advance(0.05))
        mux.command(AUTONOMY, FORWARD, clock.now)
    return mux


def test_a_mux_without_a_supervisor_keeps_working(clock: FakeClock) -> None:
    mux = autonomous(clock, supervisor_timeout=0.5)
    for _ in range(100):
        assert mux.command(AUTONOMY, FORWARD, clock.advance(0.05)) == FORWARD
    assert not mux.supervisor_lost and mux.state.mode is Mode.AUTONOMOUS


def test_a_silent_supervisor_stops_autonomy_and_refuses_it(clock: FakeClock) -> None:
    mux = supervised(clock)
    assert mux.tick(clock.advance(0.5)) == FORWARD  # not longer than the timeout yet
    assert mux.command(AUTONOMY, FORWARD, clock.advance(0.01)) == ZERO  # the planner goes on
    assert mux.state == MuxState(Mode.STOPPED, False) and mux.supervisor_lost
    assert 'supervisor silent' in mux.reason
    answer = mux.set_mode(Mode.AUTONOMOUS, clock.advance(0.1))
    assert not answer.success and 'supervisor' in answer.message
    assert 'TELEOPERATION' in answer.message
    assert mux.status(clock.now).level is Level.WARN
    # An operator can still drive.
    assert mux.set_mode(Mode.TELEOPERATION, clock.now).success
    assert mux.command(TELEOPERATION, TURN, clock.advance(0.02)) == TURN
    # The supervisor comes back: autonomy can be selected again, but is not resumed by itself.
    mux.supervisor_heartbeat(clock.advance(0.02))
    assert not mux.supervisor_lost and mux.state.mode is Mode.TELEOPERATION
    assert mux.set_mode(Mode.AUTONOMOUS, clock.now).success


def test_teleoperation_does_not_fall_back_to_autonomy_without_a_supervisor(
        clock: FakeClock) -> None:
    mux = supervised(clock, teleop_timeout_mode='previous')
    mux.command(TELEOPERATION, TURN, clock.advance(0.01))
    assert mux.state.mode is Mode.TELEOPERATION
    for _ in range(10):  # the operator drives on; the supervisor has died meanwhile
        mux.command(TELEOPERATION, TURN, clock.advance(0.1))
    assert mux.supervisor_lost
    mux.tick(clock.advance(0.6))
    assert mux.state.mode is Mode.STOPPED


def test_an_estop_request_for_autonomy_without_a_supervisor_engages_only(
        clock: FakeClock) -> None:
    mux = supervised(clock)
    mux.tick(clock.advance(0.6))
    answer = mux.set_operation_mode(Mode.AUTONOMOUS, True, clock.now)
    assert not answer.success and 'emergency stop engaged' in answer.message
    assert mux.state == MuxState(Mode.STOPPED, True)


def test_watchdog_arms_from_start_or_at_the_first_beat() -> None:
    from robot_sm.mux.watchdog import Watchdog
    lazy = Watchdog(0.5)
    assert not lazy.armed and not lazy.silent(1e9) and lazy.silence(1e9) is None
    assert lazy.beat(10.0)  # first beat: it had never been heard
    assert not lazy.silent(10.5) and lazy.silent(10.51)
    assert not lazy.beat(10.4) and lazy.beat(11.0)
    eager = Watchdog(0.5, armed_at=10.0)
    assert eager.armed and eager.silent(10.6)
    with pytest.raises(ValueError, match='timeout'):
        Watchdog(0.0)


@pytest.mark.parametrize('config,field', [
    ({'teleoperation_idle_timer': -1.0}, 'teleoperation_idle_timer'),
    ({'autonomy_timeout': 0.0}, 'autonomy_timeout'),
    ({'heartbeat_timeout': -0.5}, 'heartbeat_timeout'),
    ({'supervisor_timeout': 0.0}, 'supervisor_timeout'),
    ({'teleop_timeout_mode': 'autonomous'}, 'teleop_timeout_mode'),
    ({'max_linear_velocity': -1.0}, 'max_linear_velocity'),
])
def test_config_rejects_bad_values(config: dict, field: str) -> None:
    with pytest.raises(ValueError, match=field):
        MuxConfig(**config)


# Invariants over random event sequences -----------------------------------------------------

_velocities = st.builds(
    Velocity, *[st.one_of(st.just(0.0), st.floats(-10.0, 10.0),
                          st.sampled_from([math.nan, math.inf, 1e308, -1.7e308]))
                for _ in range(6)])
_events = st.lists(st.tuples(
    st.sampled_from(['autonomy', 'teleop', 'tick', 'engage', 'release', 'mode', 'request']),
    st.floats(0.0, 0.4), _velocities, st.integers(-1, 3), st.booleans()), max_size=60)


@settings(max_examples=150, deadline=None)
@given(_events)
def test_invariants(events: List[Any]) -> None:
    """
    Check the invariants over random event sequences.

    E-stop means zero; limits always hold; nothing moves before a mode is selected, nor after a
    release until a new mode; a mode request never releases the e-stop.
    """
    now = 0.0
    mux = ControlMux(MuxConfig(max_linear_velocity=1.0, max_angular_velocity=2.0), now)
    released_and_idle = False
    selected = False
    for kind, dt, velocity, mode, flag in events:
        now += dt
        out: Optional[Velocity]
        before = mux.state
        if kind == 'autonomy':
            out = mux.command(AUTONOMY, velocity, now)
        elif kind == 'teleop':
            out = mux.command(TELEOPERATION, velocity, now)
        elif kind == 'tick':
            out = mux.tick(now)
        elif kind == 'engage':
            mux.engage('test', now)
            out = mux.output(now)
        elif kind == 'release':
            mux.release(now)
            out = mux.output(now)
        elif kind == 'mode':
            mux.set_mode(mode, now)
            out = mux.output(now)
        else:
            mux.set_operation_mode(mode, flag, now)
            out = mux.output(now)
            assert not (before.emergency_stop and not mux.emergency_stop)
        selected = selected or mux.operator_selected
        if before.emergency_stop and not mux.emergency_stop:
            released_and_idle = True
        if mux.state.mode is not Mode.STOPPED or mux.emergency_stop:
            released_and_idle = False
        if out is None:
            continue
        assert out.is_finite()
        assert math.hypot(*out[:3]) <= 1.0 + 1e-9
        assert math.hypot(*out[3:]) <= 2.0 + 1e-9
        if mux.emergency_stop or released_and_idle or not selected:
            assert out == ZERO


def test_operator_presence_follows_the_heartbeat_and_survives_the_latch(clock: FakeClock) -> None:
    mux = make_mux(clock, heartbeat_timeout=0.5)
    assert mux.operator_present is False  # nothing heard yet
    mux.heartbeat(False, clock.advance(0.1))
    assert mux.operator_present is True
    mux.tick(clock.advance(0.5))
    assert mux.operator_present is True
    mux.tick(clock.advance(0.01))
    assert mux.operator_present is False and mux.emergency_stop
    # Heard again: present, and the e-stop stays latched until it is released.
    mux.heartbeat(False, clock.advance(0.1))
    assert mux.operator_present is True and mux.emergency_stop


def test_no_operator_presence_without_a_heartbeat_watchdog(clock: FakeClock) -> None:
    assert make_mux(clock).operator_present is None
