"""A controller stream's presence: late samples hold; a stamp gap or a long silence stops."""

from robot_sm.teleop.input_presence import InputPresence, Presence

TIMEOUT, TOLERANCE = 0.1, 0.4
PERIOD = 1.0 / 90.0
#: Inside a bound by less than any figure a user could notice, more than rounding.
EPSILON = 1e-6


def stream(presence: InputPresence, start: float, end: float, delay: float = 0.0) -> float:
    """Send samples stamped start .. end every PERIOD, each arriving ``delay`` late."""
    stamp = start
    while stamp <= end + 1e-9:
        presence.received(stamp + delay, stamp)
        stamp += PERIOD
    return stamp - PERIOD


def test_nothing_yet_is_lost_and_a_sample_makes_it_present() -> None:
    presence = InputPresence(TIMEOUT, TOLERANCE)
    assert presence.presence(0.0) is Presence.LOST
    presence.received(1.0, 1.0)
    assert presence.presence(1.0) is Presence.PRESENT
    assert presence.presence(1.0 + TIMEOUT - EPSILON) is Presence.PRESENT


def test_silence_is_late_then_lost_after_timeout_plus_tolerance() -> None:
    presence = InputPresence(TIMEOUT, TOLERANCE)
    last = stream(presence, 0.0, 1.0)
    assert presence.presence(last + TIMEOUT + 0.001) is Presence.LATE
    assert presence.presence(last + TIMEOUT + TOLERANCE - EPSILON) is Presence.LATE
    assert presence.presence(last + TIMEOUT + TOLERANCE + 0.001) is Presence.LOST


def test_a_late_burst_without_a_gap_in_its_stamps_is_never_lost() -> None:
    presence = InputPresence(TIMEOUT, TOLERANCE)
    last = stream(presence, 0.0, 1.0)
    # Nothing arrives for 0.3 s, then the samples of that time come at once, in order.
    assert presence.presence(last + 0.3) is Presence.LATE
    now = last + 0.3
    stamp = last + PERIOD
    while stamp <= now:
        presence.received(now, stamp)
        stamp += PERIOD
    assert presence.presence(now) is Presence.PRESENT
    assert presence.presence(now + 0.05) is Presence.PRESENT


def test_a_gap_in_the_stamps_reads_lost_once_even_though_samples_flow_again() -> None:
    presence = InputPresence(TIMEOUT, TOLERANCE)
    last = stream(presence, 0.0, 1.0)
    # The controller itself stopped sending for 0.2 s (a dropout), then went on.
    resumed = last + 0.2
    presence.received(resumed, resumed)
    assert presence.presence(resumed) is Presence.LOST
    presence.received(resumed + PERIOD, resumed + PERIOD)
    assert presence.presence(resumed + PERIOD) is Presence.PRESENT


def test_a_gap_no_longer_than_the_timeout_is_no_loss() -> None:
    presence = InputPresence(TIMEOUT, TOLERANCE)
    last = stream(presence, 0.0, 1.0)
    presence.received(last + TIMEOUT - EPSILON, last + TIMEOUT - EPSILON)
    assert presence.presence(last + TIMEOUT - EPSILON) is Presence.PRESENT


def test_unstamped_samples_are_judged_by_arrival_alone() -> None:
    presence = InputPresence(TIMEOUT, TOLERANCE)
    presence.received(1.0, 0.0)
    presence.received(1.3, 0.0)   # 0.3 s after the last one: late, no stamps to say more
    assert presence.presence(1.3) is Presence.PRESENT
    assert presence.presence(1.3 + TIMEOUT + TOLERANCE + 0.001) is Presence.LOST


def test_no_tolerance_is_the_plain_timeout() -> None:
    presence = InputPresence(TIMEOUT, 0.0)
    presence.received(1.0, 1.0)
    assert presence.presence(1.0 + TIMEOUT - EPSILON) is Presence.PRESENT
    assert presence.presence(1.0 + TIMEOUT + 0.001) is Presence.LOST
