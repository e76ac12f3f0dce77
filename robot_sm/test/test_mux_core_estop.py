"""Rules of the robot control mux core: the e-stop, its latch, the heartbeat, operator presence."""

from typing import Any

from mux_fakes import autonomous, FakeClock, FORWARD, make_mux, TURN
import pytest

from robot_sm.mux import (
    Answer,
    AUTONOMY,
    ControlMux,
    Level,
    Mode,
    MuxConfig,
    MuxState,
    TELEOPERATION,
    ZERO,
)


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


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


HEARTBEAT_TOPIC = 'robot_sm/operator_heartbeat'


def remote_mux(clock: FakeClock, timeout: float = 1.0, **config: Any) -> ControlMux:
    """Return a mux as config/remote.yaml starts it: watching the operator heartbeat."""
    return ControlMux(MuxConfig(heartbeat_timeout=timeout, heartbeat_topic=HEARTBEAT_TOPIC,
                                **config), clock.now)


def test_before_the_first_heartbeat_the_mux_stays_stopped_and_refuses_modes(
        clock: FakeClock) -> None:
    mux = remote_mux(clock, joystick_used=True)
    not_heard = ('the operator is not heard yet (heartbeat topic robot_sm/operator_heartbeat): '
                 'the mux stays STOPPED and refuses modes until the first heartbeat arrives')
    # No silence counts before the operator was heard: no e-stop however long it takes.
    assert mux.tick(clock.advance(3600.0)) == ZERO
    assert mux.state == MuxState(Mode.STOPPED, False) and mux.operator_present is False
    for mode in Mode:
        assert mux.set_mode(mode, clock.advance(0.01)) == Answer(False, not_heard)
        assert mux.set_operation_mode(mode, False, clock.now) == Answer(False, not_heard)
    # Nothing takes over: a stuck teleoperation stream, a joystick moving.
    for _ in range(20):
        assert mux.command(TELEOPERATION, TURN, clock.advance(0.02)) is None
    assert mux.joystick([0.9, 0.0], [1, 0], clock.advance(0.02)) is None
    assert mux.state == MuxState(Mode.STOPPED, False)
    status = mux.status(clock.now)
    assert status.level is Level.OK and not_heard in status.summary
    # Stopping never waits: the e-stop engages, but no mode is selected with it.
    answer = mux.set_operation_mode(Mode.AUTONOMOUS, True, clock.now)
    assert not answer.success and not_heard in answer.message
    assert mux.state == MuxState(Mode.STOPPED, True) and not mux.operator_selected


def test_an_operator_discovered_late_finds_no_estop(clock: FakeClock) -> None:
    # The operator station was up before the robot; discovering it took longer than the
    # heartbeat timeout (1.03 s was seen).
    mux = remote_mux(clock, timeout=1.0)
    mux.tick(clock.advance(1.03))
    assert mux.heartbeat(False, clock.now) is None
    assert mux.state == MuxState(Mode.STOPPED, False) and mux.operator_present is True
    assert 'not heard' not in mux.status(clock.now).summary
    assert mux.set_mode(Mode.AUTONOMOUS, clock.advance(0.05)).success


def test_silence_after_the_first_heartbeat_engages_and_latches(clock: FakeClock) -> None:
    mux = remote_mux(clock, timeout=0.5)
    mux.heartbeat(False, clock.advance(2.0))
    assert mux.set_mode(Mode.AUTONOMOUS, clock.now).success
    assert mux.command(AUTONOMY, FORWARD, clock.advance(0.05)) == FORWARD
    # The station hides (its beats stop, nothing else changes): the e-stop engages and latches.
    assert mux.tick(clock.advance(0.4)) == FORWARD
    assert mux.tick(clock.advance(0.06)) == ZERO
    assert mux.state == MuxState(Mode.AUTONOMOUS, True)
    assert mux.operator_present is False and 'heartbeat silent' in mux.emergency_stop_reason
    refused = mux.release(clock.advance(0.1))
    assert refused == Answer(False, 'heartbeat silent for 0.61 s (timeout 0.5 s): the emergency '
                                    'stop stays engaged')
    # Heard again: it stays latched until released, and then nothing moves before a mode.
    mux.heartbeat(False, clock.advance(0.1))
    assert mux.emergency_stop and mux.command(AUTONOMY, FORWARD, clock.now) is None
    assert mux.release(clock.advance(0.01)).success
    assert mux.state == MuxState(Mode.STOPPED, False)
    assert mux.set_mode(Mode.AUTONOMOUS, clock.now).success


def test_heartbeat_true_engages(clock: FakeClock) -> None:
    mux = autonomous(clock, heartbeat_timeout=1.0)
    mux.command(AUTONOMY, FORWARD, clock.now)
    assert mux.heartbeat(True, clock.advance(0.1)) == ZERO
    assert mux.emergency_stop

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


def test_operator_presence_follows_the_heartbeat_and_survives_the_latch(clock: FakeClock) -> None:
    mux = remote_mux(clock, timeout=0.5)
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
