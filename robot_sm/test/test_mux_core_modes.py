"""Rules of the robot control mux core: modes, stale inputs, the teleop takeover and its timer."""

from mux_fakes import autonomous, BACKWARD, FakeClock, FORWARD, make_mux, TURN
import pytest

from robot_sm.mux import AUTONOMY, Level, Mode, MuxState, TELEOPERATION, ZERO


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


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
