"""Rules of the robot control mux core: joystick, bad and huge commands, statistics, supervisor."""

import math
from typing import Any, List, Optional

from hypothesis import given, settings, strategies as st
from mux_fakes import autonomous, FakeClock, FORWARD, TURN
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


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


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
    assert set(reports) == {'autonomy', 'teleoperation', 'operator', 'joy', 'heartbeat',
                            'supervisor'}
    assert reports['autonomy'].rate == pytest.approx(20.0)
    assert reports['autonomy'].age == pytest.approx(0.1)
    assert reports['autonomy'].received == 20
    assert reports['teleoperation'].age is None

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
