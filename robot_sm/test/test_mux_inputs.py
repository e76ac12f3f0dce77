"""Any number of prioritised velocity inputs and locks in the mux core, driven by a fake clock."""

import math
from typing import Any, Dict, List, Sequence

import pytest
from robot_sm.mux import (
    ControlMux,
    INPUT_PARAMETERS,
    INPUT_REQUIRED,
    Level,
    Lock,
    Mode,
    MuxConfig,
    Velocity,
    velocity_inputs,
    VelocityInput,
    ZERO,
)
from robot_sm.parameters import ConfigurationError, named_entries

NAV = Velocity(0.3)
DOCK = Velocity(0.05)
JOY = Velocity(angular_z=0.5)
TABLET = Velocity(-0.2)
A, T = Mode.AUTONOMOUS, Mode.TELEOPERATION

#: Two autonomy inputs, two teleoperation inputs (one that does not take over), two locks.
INPUTS = (
    VelocityInput('navigation', 'nav_vel', 0.5, 10, A),
    VelocityInput('docking', 'dock_vel', 0.25, 20, A),
    VelocityInput('joystick', 'joy_vel', 0.5, 100, T, takes_over=True),
    VelocityInput('tablet', 'tab_vel', 1.0, 90, T, takes_over=True),
    VelocityInput('keyboard', 'key_vel', 0.5, 80, T),
)
LOCKS = (Lock('pause', 'pause_navigation', 0.0, 50),
         Lock('safety', 'safety_heartbeat', 0.3, 200))


class Clock:
    """Time that moves only when told to."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self, seconds: float = 0.0) -> float:
        self.now += seconds
        return self.now


def mux(clock: Clock, mode: Mode = Mode.STOPPED, locks: Sequence[Lock] = (),
        **config: Any) -> ControlMux:
    """Return a mux with :data:`INPUTS` (and ``locks``) in ``mode``, selected by an operator."""
    result = ControlMux(MuxConfig(inputs=INPUTS, locks=tuple(locks), **config), clock.now)
    assert result.set_mode(mode, clock.now).success
    return result


def states(result: ControlMux, now: float) -> Dict[str, str]:
    return {report.name: report.state for report in result.status(now).inputs}


# Selection ----------------------------------------------------------------------------------


def test_the_highest_priority_fresh_input_of_the_mode_drives() -> None:
    clock = Clock()
    m = mux(clock, A)
    assert m.command('navigation', NAV, clock()) == NAV
    assert m.active_source == 'navigation'
    assert m.command('docking', DOCK, clock(0.01)) == DOCK  # higher: takes the output at once
    assert m.command('navigation', NAV, clock(0.01)) is None  # lower: not published
    assert m.tick(clock(0.01)) == DOCK and m.active_source == 'docking'
    assert m.command('keyboard', TABLET, clock(0.01)) is None  # another class: never here
    assert m.state.mode is A


def test_a_stale_input_gives_way_to_a_lower_one_to_the_millisecond() -> None:
    clock = Clock()
    m = mux(clock, A)
    m.command('navigation', NAV, clock())
    docked = clock(0.125)  # times and timeouts exact in binary: the boundaries are exact
    m.command('docking', DOCK, docked)
    navigated = clock(0.125)
    m.command('navigation', NAV, navigated)  # keeps streaming
    clock.now = docked + 0.25  # exactly docking's timeout: still fresh
    assert m.tick(clock.now) == DOCK
    assert m.tick(clock(0.001)) == NAV and m.active_source == 'navigation'
    clock.now = navigated + 0.5  # exactly navigation's timeout: still fresh
    assert m.tick(clock.now) == NAV
    assert m.tick(clock(0.001)) == ZERO and m.active_source == 'none'
    status = m.status(clock.now)
    assert status.level is Level.WARN
    assert 'docking: newest message 0.63 s old' in status.summary
    assert 'navigation: newest message 0.50 s old' in status.summary


def test_a_teleoperation_input_that_does_not_take_over_drives_in_teleoperation_only() -> None:
    clock = Clock()
    m = mux(clock, A)
    m.command('navigation', NAV, clock())
    assert m.command('keyboard', TABLET, clock(0.01)) is None
    assert m.state.mode is A
    assert m.set_mode(T, clock(0.01)).success
    assert m.command('keyboard', TABLET, clock(0.01)) == TABLET
    # Its non-zero commands keep teleoperation alive, as a takeover input's do.
    for _ in range(10):
        assert m.command('keyboard', TABLET, clock(0.1)) == TABLET
    assert m.state.mode is T
    assert m.tick(clock(0.5)) == ZERO and m.state.mode is Mode.STOPPED


def test_each_takeover_input_takes_over_and_the_highest_drives() -> None:
    clock = Clock()
    m = mux(clock, A)
    m.command('navigation', NAV, clock())
    assert m.command('tablet', TABLET, clock(0.01)) == TABLET
    assert m.state.mode is T and 'tablet command took over' in m.reason
    joystick = clock(0.125)
    assert m.command('joystick', JOY, joystick) == JOY
    assert m.command('tablet', TABLET, clock(0.125)) is None
    assert m.active_source == 'joystick'
    # The joystick stops sending; the tablet keeps teleoperation alive and drives after it.
    assert m.command('tablet', TABLET, clock(0.25)) is None
    clock.now = joystick + 0.5
    assert m.tick(clock.now) == JOY
    assert m.tick(clock(0.001)) == TABLET and m.active_source == 'tablet'
    assert m.state.mode is T


def test_zero_commands_of_the_higher_input_hold_the_robot_still() -> None:
    clock = Clock()
    m = mux(clock, T)
    m.command('tablet', TABLET, clock())
    assert m.command('joystick', ZERO, clock(0.01)) == ZERO  # a joystick at rest drives: zero
    assert m.command('tablet', TABLET, clock(0.01)) is None


# Locks --------------------------------------------------------------------------------------


def test_a_lock_masks_lower_inputs_at_once_and_frees_them() -> None:
    clock = Clock()
    m = mux(clock, A, locks=LOCKS)
    m.lock('safety', False, clock())
    m.command('navigation', NAV, clock(0.01))
    m.command('docking', DOCK, clock(0.01))
    assert m.lock('pause', True, clock(0.01)) == ZERO  # published at once
    assert m.active_source == 'none'
    assert m.command('docking', DOCK, clock(0.01)) is None
    assert m.tick(clock(0.01)) == ZERO
    assert states(m, clock.now)['docking'] == 'locked by pause'
    assert states(m, clock.now)['pause'] == 'locked (data true)'
    status = m.status(clock.now)
    assert status.lock_priority == 50 and 'docking: locked by pause' in status.summary
    assert m.lock('pause', True, clock(0.01)) is None  # nothing changed
    assert m.lock('pause', False, clock(0.01)) == DOCK  # its newest command is still fresh


def test_an_input_of_the_lock_priority_is_not_masked() -> None:
    clock = Clock()
    inputs = (VelocityInput('joystick', 'joy_vel', 0.5, 100, T, takes_over=True),)
    m = ControlMux(MuxConfig(inputs=inputs, locks=(Lock('pause', 'p', 0.0, 100),)), clock.now)
    m.set_mode(T, clock.now)
    m.lock('pause', True, clock())
    assert m.command('joystick', JOY, clock(0.01)) == JOY  # twist_mux: equal is not masked


def test_a_lock_with_a_timeout_starts_locked_and_locks_when_silent_to_the_millisecond() -> None:
    clock = Clock()
    m = mux(clock, T, locks=LOCKS)
    assert m.command('joystick', JOY, clock(0.01)) is None  # never heard: locked
    assert states(m, clock.now)['safety'] == 'locked (never heard)'
    beat = clock(0.01)
    assert m.lock('safety', False, beat) == JOY  # heard: the joystick drives at once
    clock.now = beat + 0.3
    assert m.tick(clock.now) == JOY
    assert m.tick(clock(0.001)) == ZERO
    assert states(m, clock.now)['safety'] == 'locked (silent for 0.30 s)'
    assert m.lock('safety', False, clock(0.01)) == JOY  # heard again: the command is 0.32 s old
    assert m.tick(clock(0.2)) == ZERO and m.state.mode is Mode.STOPPED  # teleoperation idle


def test_a_lock_without_a_timeout_starts_free_and_follows_its_data() -> None:
    clock = Clock()
    m = mux(clock, A, locks=LOCKS[:1])
    assert m.command('navigation', NAV, clock()) == NAV
    assert m.tick(clock(100.0)) == ZERO  # stale, but the lock stays free without messages
    assert states(m, clock.now)['pause'] == 'free'


def test_masked_inputs_neither_take_over_nor_keep_teleoperation_alive() -> None:
    clock = Clock()
    m = mux(clock, A, locks=LOCKS)  # safety never heard: everything below 200 is masked
    assert m.command('joystick', JOY, clock()) is None
    assert m.state.mode is A
    m.lock('safety', False, clock(0.01))
    assert m.command('joystick', JOY, clock(0.01)) == JOY and m.state.mode is T
    m.lock('safety', True, clock(0.01))
    for _ in range(5):
        m.command('joystick', JOY, clock(0.1))
    assert m.state.mode is Mode.STOPPED  # idle since the lock: commands masked


def test_the_joystick_does_not_take_over_when_locks_mask_every_teleoperation_input() -> None:
    clock = Clock()
    m = mux(clock, A, locks=LOCKS, joystick_used=True)
    m.joystick([0.0, 0.0], [0], clock())
    m.joystick([0.0, 0.0], [1], clock(0.01))  # button press, but safety has never been heard
    assert m.state.mode is A
    m.lock('safety', False, clock(0.01))
    m.joystick([0.0, 0.0], [0], clock(0.01))
    m.joystick([0.0, 0.0], [1], clock(0.01))
    assert m.state.mode is T


def test_the_estop_stays_above_every_lock() -> None:
    clock = Clock()
    m = mux(clock, A, locks=LOCKS)
    m.lock('safety', False, clock())
    m.command('navigation', NAV, clock(0.01))
    m.engage('test', clock(0.01))
    m.lock('pause', False, clock(0.01))
    m.lock('safety', False, clock(0.01))
    assert m.command('navigation', NAV, clock(0.01)) is None
    assert m.tick(clock.now) == ZERO and m.emergency_stop
    assert m.status(clock.now).level is Level.ERROR


# Streams that ran through a stop ------------------------------------------------------------


def test_a_stream_that_ran_through_the_estop_never_drives_while_another_does() -> None:
    clock = Clock()
    m = mux(clock, A)
    m.command('joystick', JOY, clock())  # the operator drives with the joystick ...
    m.engage('test', clock(0.01))
    m.command('joystick', JOY, clock(0.01))  # ... which is stuck through the e-stop
    assert m.release(clock(0.01)).success
    assert m.set_mode(A, clock(0.01)).success
    m.command('navigation', NAV, clock(0.01))
    assert m.command('joystick', JOY, clock(0.01)) is None and m.state.mode is A
    assert m.command('tablet', TABLET, clock(0.01)) == TABLET  # another operator takes over
    assert m.state.mode is T
    # The stuck joystick has the higher priority, but it does not drive until it lets go.
    assert m.command('joystick', JOY, clock(0.01)) is None
    assert 'waits for a zero command' in states(m, clock.now)['joystick']
    assert m.command('joystick', ZERO, clock(0.01)) == ZERO  # released: armed, and it drives
    assert m.command('joystick', JOY, clock(0.01)) == JOY


def test_a_pause_longer_than_its_timeout_arms_a_stream_again() -> None:
    clock = Clock()
    m = mux(clock, A)
    m.engage('test', clock())
    sent = clock(0.125)
    m.command('tablet', TABLET, sent)
    m.release(clock(0.125))
    m.set_mode(Mode.STOPPED, clock(0.125))
    clock.now = sent + 1.0  # a pause of exactly its timeout (1 s) is not enough
    assert m.command('tablet', TABLET, clock.now) is None
    assert m.command('tablet', TABLET, clock(1.001)) == TABLET
    assert m.state.mode is T


# Configuration ------------------------------------------------------------------------------


def test_without_inputs_the_mux_has_autonomy_and_teleoperation() -> None:
    config = MuxConfig(autonomy_timeout=0.7, teleoperation_idle_timer=0.4)
    autonomy, teleoperation = velocity_inputs(config)
    assert (autonomy.name, autonomy.topic, autonomy.mode, autonomy.timeout,
            autonomy.takes_over) == ('autonomy', 'autonomy/cmd_vel', A, 0.7, False)
    assert (teleoperation.name, teleoperation.topic, teleoperation.mode, teleoperation.timeout,
            teleoperation.takes_over) == ('teleoperation', 'teleoperation/cmd_vel', T, 0.4, True)
    assert velocity_inputs(MuxConfig(inputs=INPUTS)) == INPUTS


@pytest.mark.parametrize('make, message', [
    (lambda: VelocityInput('nav', 'nav_vel', -0.5, 10, A),
     "parameter 'inputs.nav.timeout' must be >= 0.01 (got -0.5)"),
    (lambda: VelocityInput('nav', 'nav_vel', 0.0, 10, A),
     "parameter 'inputs.nav.timeout' must be >= 0.01 (got 0.0)"),
    (lambda: VelocityInput('nav', 'nav_vel', 0.5, 256, A),
     "parameter 'inputs.nav.priority' must be <= 255 (got 256)"),
    (lambda: VelocityInput('nav', 'nav_vel', 0.5, -1, A),
     "parameter 'inputs.nav.priority' must be >= 0 (got -1)"),
    (lambda: VelocityInput('nav', '', 0.5, 10, A),
     "parameter 'inputs.nav.topic' must not be empty (got '')"),
    (lambda: VelocityInput('nav', 'nav_vel', 0.5, 10, Mode.STOPPED),
     "parameter 'inputs.nav.class' must be one of 'autonomy', 'teleoperation' (got 'stopped')"),
    (lambda: VelocityInput('nav', 'nav_vel', 0.5, 10, A, takes_over=True),
     "parameter 'inputs.nav.takeover' must be false for an input of class autonomy"),
    (lambda: Lock('pause', 'pause', -1.0, 10),
     "parameter 'locks.pause.timeout' must be >= 0 (got -1.0)"),
    (lambda: Lock('pause', 'pause', 0.001, 10),
     "parameter 'locks.pause.timeout' must be 0 (no timeout) or >= 0.01 (got 0.001)"),
    (lambda: Lock('pause', 'pause', 0.0, 0),
     "parameter 'locks.pause.priority' must be >= 1 (got 0)"),
    (lambda: MuxConfig(inputs=INPUTS[:2] + (VelocityInput('docking', 'x', 0.5, 5, T),)),
     "parameter 'inputs.docking': the name docking is also given to inputs.docking"),
    (lambda: MuxConfig(inputs=INPUTS, locks=(Lock('tablet', 'x', 0.0, 5),)),
     "parameter 'locks.tablet': the name tablet is also given to inputs.tablet"),
    (lambda: MuxConfig(inputs=(VelocityInput('joy', 'x', 0.5, 5, T),)),
     "parameter 'inputs.joy': the name joy is reserved"),
    (lambda: MuxConfig(inputs=INPUTS + (VelocityInput('web', 'web_vel', 0.5, 100, T),)),
     "parameter 'inputs.web.priority' is also the priority of inputs.joystick, of the same "
     'class teleoperation: give them different priorities (got 100)'),
])
def test_bad_inputs_and_locks_are_refused_naming_the_entry_and_field(
        make: Any, message: str) -> None:
    with pytest.raises(ConfigurationError) as refusal:
        make()
    assert str(refusal.value).startswith(message)
    assert '\n' not in str(refusal.value)


def test_equal_priorities_in_different_classes_are_accepted() -> None:
    inputs = (VelocityInput('nav', 'nav_vel', 0.5, 10, A),
              VelocityInput('stick', 'joy_vel', 0.5, 10, T))
    assert MuxConfig(inputs=inputs).inputs == inputs


def entries(names: List[str]) -> List[str]:
    return named_entries(names, 'inputs', INPUT_PARAMETERS, INPUT_REQUIRED)


def test_entries_are_found_among_the_parameter_names() -> None:
    names = ['update_frequency', 'inputs.nav.topic', 'inputs.nav.timeout', 'inputs.nav.priority',
             'inputs.nav.class', 'inputs.joy.topic', 'inputs.joy.timeout', 'inputs.joy.priority',
             'inputs.joy.class', 'inputs.joy.takeover', 'inputsx.y', 'locks.pause.topic']
    assert entries(names) == ['joy', 'nav']
    assert entries(['update_frequency']) == []


@pytest.mark.parametrize('names, message', [
    (['inputs.nav.topic', 'inputs.nav.timeout', 'inputs.nav.class'],
     "parameter 'inputs.nav.priority' is missing: every entry of inputs needs topic, timeout, "
     'priority, class'),
    (['inputs.nav.topic', 'inputs.nav.timeout', 'inputs.nav.class', 'inputs.nav.priority',
      'inputs.nav.take_over'],
     "parameter 'inputs.nav.take_over' is not a field of an entry of inputs: give "
     'inputs.<name>.<field>, a field being one of class, priority, takeover, timeout, topic'),
    (['inputs.nav'], "parameter 'inputs.nav' is not a field of an entry of inputs"),
    (['inputs'], "parameter 'inputs' is not a field of an entry of inputs"),
])
def test_malformed_entries_are_refused_naming_the_parameter(
        names: List[str], message: str) -> None:
    with pytest.raises(ConfigurationError) as refusal:
        entries(names)
    assert str(refusal.value).startswith(message)


def test_nan_is_dropped_on_every_input_and_counted_per_input() -> None:
    clock = Clock()
    m = mux(clock, A)
    m.command('docking', DOCK, clock())
    assert m.command('navigation', Velocity(math.nan), clock(0.01)) is None
    assert m.command('keyboard', Velocity(math.inf), clock(0.01)) is None
    assert m.inputs['navigation'].dropped == 1 and m.inputs['keyboard'].dropped == 1
    assert m.tick(clock.now) == DOCK
