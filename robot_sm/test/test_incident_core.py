"""The incident recorder's core: the ring, detection, a stop's figures, files and the budget."""

import pathlib
from typing import List

import pytest
from robot_sm.contract import Mode, Outcome
from robot_sm.mux import ControlMux, MuxConfig
from robot_sm.parameters import ConfigurationError
from robot_sm.recording.figures import CommandSample, OdometrySample, stop_figures
from robot_sm.recording.incident_files import (
    Channel, IncidentFolder, IncidentRecord, IncidentWriter, over_budget)
from robot_sm.recording.incidents import (
    Incident, IncidentDetector, RecorderSettings, STALE_SETTLE, SUPERVISOR_SILENCE)
from robot_sm.recording.mcap_read import read_messages
from robot_sm.recording.ring import ENTRY_OVERHEAD, MessageRing

S = 1_000_000_000


def test_the_ring_keeps_its_window_and_its_memory_budget_counting_what_did_not_fit() -> None:
    ring = MessageRing(seconds=2.0, max_bytes=10 * (100 + ENTRY_OVERHEAD))
    for k in range(30):   # 10 per second for 3 s
        ring.add('odom', k * S // 10, bytes(100))
    assert ring.oldest == 2 * S and len(ring) == 10  # the budget, not the window
    assert ring.dropped == 20
    roomy = MessageRing(seconds=2.0, max_bytes=1 << 20)
    for k in range(30):
        roomy.add('odom', k * S // 10, bytes(100))
    assert roomy.oldest == 9 * S // 10 and len(roomy) == 21 and roomy.dropped == 0
    assert [e.stamp for e in roomy.entries(since=29)] == [29 * S // 10]  # the 30th added
    roomy.add('odom', 28 * S // 10 + 1, bytes(100))  # taken late: stamped before the 30th
    assert [e.stamp for e in roomy.entries(since=30)] == [28 * S // 10 + 1]
    assert roomy.entries(since=31) == []


def test_latched_topics_keep_their_newest_message_and_thinned_topics_their_period() -> None:
    ring = MessageRing(seconds=1.0, max_bytes=1 << 20, min_periods={'map': 1.0})
    ring.latch('map')
    assert ring.add('map', 0, b'first map')
    assert not ring.add('map', S // 2, b'too soon')
    for k in range(1, 40):
        ring.add('odom', k * S // 10, b'x')
    assert 'map' not in {e.topic for e in ring.entries()}
    assert [e.data for e in ring.held()] == [b'first map']
    assert ring.thinned == 1
    assert ring.add('map', 4 * S, b'second map')
    assert ring.held() == [] and ring.entries()[-1].data == b'second map'
    assert ring.bytes == sum(len(e.data) + ENTRY_OVERHEAD for e in ring.entries())


def test_figures_of_a_stop_come_from_odometry_and_commands() -> None:
    odometry = [OdometrySample(t / 10, 0.05 * t, 0.0, 0.5, 0.0) for t in range(11)]
    odometry += [OdometrySample(1.1, 0.53, 0.0, 0.2, 0.0),
                 OdometrySample(1.2, 0.54, 0.0, 0.0, 0.0),
                 OdometrySample(1.3, 0.54, 0.0, 0.0, 0.0)]
    commands = [CommandSample(0.95, False), CommandSample(1.04, True)]
    figures = stop_figures(odometry, commands, trigger=1.02, end=2.0, rest_speed=0.02,
                           rest_turn_rate=0.05)
    assert figures.speed == 0.5
    assert figures.time_to_zero == pytest.approx(0.02)
    assert figures.time_to_rest == pytest.approx(0.18)
    assert figures.distance == pytest.approx(0.04)
    # The mux zeroes before it says why: a zero already there at the trigger counts as 0 s.
    assert stop_figures(odometry, [CommandSample(1.01, True)], 1.02, 2.0, 0.02, 0.05
                        ).time_to_zero == 0.0
    moving = stop_figures(odometry[:11], [], 0.5, 2.0, 0.02, 0.05)
    assert (moving.time_to_zero, moving.time_to_rest) == (None, None)
    assert moving.distance == pytest.approx(0.25)
    assert stop_figures([], [], 1.0, 2.0, 0.02, 0.05).speed is None


def detector(**settings: float) -> IncidentDetector:
    return IncidentDetector(RecorderSettings(after_seconds=5.0, **settings))


def test_an_emergency_stop_opens_an_incident_closed_after_the_seconds_after_it() -> None:
    d = detector()
    d.emergency_stop_cause('', 0.0)   # joined: released
    d.emergency_stop_cause('emergency stop engaged: STOP by alice (cli)', 10.0)
    assert [i.cause for i in d.open] == ['emergency stop engaged: STOP by alice (cli)']
    d.audit(2, 'alice', 'engage_emergency_stop', 10.02)
    assert d.tick(14.9) == []
    closed, = d.tick(15.0)
    assert (closed.id, closed.kind, closed.time) == (1, 'emergency_stop', 10.0)
    assert closed.operator == 'alice' and 'STOP +0.02 s' in closed.operator_note
    d.emergency_stop_cause('emergency stop engaged: STOP by alice (cli)', 16.0)  # no release
    d.emergency_stop_cause('', 17.0)
    d.emergency_stop_cause('heartbeat silent for more than 1 s', 18.0)
    assert [i.id for i in d.open] == [2]
    second, = d.tick(30.0)
    assert second.operator == 'alice'
    assert second.operator_note == ('the last command before the trigger '
                                    '(engage_emergency_stop, 8.0 s before)')
    unknown = detector()
    unknown.snapshot(1.0)
    assert unknown.tick(10.0)[0].operator_note.startswith('no operator in the audit log')


def test_what_happens_while_an_incident_is_open_joins_it_and_an_e_stop_becomes_its_cause() -> None:
    d = detector()
    d.operator_present(True, 0.0)
    d.emergency_stop_cause('', 0.0)
    d.teleop_state(2, 0.0)
    d.operator_present(False, 5.0)
    d.emergency_stop_cause('emergency stop engaged: heartbeat silent for more than 1 s', 5.01)
    d.teleop_state(0, 5.05)
    incident, = d.open
    assert incident.kind == 'emergency_stop' and incident.time == 5.0
    assert incident.cause == 'emergency stop engaged: heartbeat silent for more than 1 s'
    assert incident.also[0].startswith('operator link lost: operator heartbeat silent')
    assert incident.also[1].startswith('teleop fail-safe: teleop STOPPED (was RUNNING)')
    assert d.snapshot(6.0) is incident


def test_an_event_taken_after_the_trigger_that_arrived_just_before_joins_the_incident() -> None:
    d = detector()
    d.operator_present(True, 0.0)
    d.emergency_stop_cause('', 0.0)
    d.emergency_stop_cause('emergency stop engaged: heartbeat silent for more than 1 s', 5.01)
    d.operator_present(False, 5.0)  # arrived first, taken second
    incident, = d.open
    assert incident.kind == 'emergency_stop'
    assert incident.also[0].startswith('operator link lost: operator heartbeat silent')
    d.operator_present(True, 5.5)
    d.operator_present(False, 3.5)  # over a second before: an incident of its own
    assert len(d.open) == 2


def test_a_latch_found_at_start_is_an_incident_unless_it_was_recorded_already() -> None:
    reason = ControlMux(MuxConfig(), 0.0, 'STOP by alice (cli)').reason
    fresh = detector()
    fresh.emergency_stop_cause(reason, 1.0)
    assert [i.cause for i in fresh.open] == [reason]
    restarted = IncidentDetector(RecorderSettings(), known_latch_cause=reason)
    restarted.emergency_stop_cause(reason, 1.0)
    assert restarted.open == []
    joined_late = detector()   # an e-stop engaged before the recorder joined: not its to record
    joined_late.emergency_stop_cause('emergency stop engaged: STOP by bob (web)', 1.0)
    assert joined_late.open == []


def test_a_failed_activity_and_a_silent_supervisor_are_incidents() -> None:
    d = detector()
    d.state_report('Idle', 3, Outcome.FAILED, 'an old failure', 0.0)   # joined
    d.state_report('W: Navigation', 3, Outcome.FAILED, 'an old failure', 1.0)
    assert d.open == []
    d.state_report('Idle', 4, Outcome.FAILED, "waypoint following failed: 'Faulty' raised", 2.0)
    assert [(i.kind, i.state) for i in d.open] == [('activity_failed', 'Idle')]
    d.tick(10.0)
    d.operation_mode(Mode.AUTONOMOUS, False, 10.0)
    d.supervisor_heartbeat(10.0)
    d.operation_mode(Mode.STOPPED, False, 10.2)   # an operator's STOPPED: the beats go on
    d.operation_mode(Mode.AUTONOMOUS, False, 11.0)
    d.supervisor_heartbeat(11.0)
    d.operation_mode(Mode.STOPPED, False, 11.0 + SUPERVISOR_SILENCE + 0.6)
    incident, = d.open
    assert incident.kind == 'supervisor_silent' and 'not heard for 1.10 s' in incident.cause


def moving(d: IncidentDetector, t: float, speed: float = 0.4) -> None:
    d.odometry(OdometrySample(t, speed * t, 0.0, speed, 0.0))


def test_a_stale_input_zeroed_while_moving_is_an_incident_unless_a_mode_change_explains_it(
        ) -> None:
    d = detector()
    d.operation_mode(Mode.AUTONOMOUS, False, 0.0)
    d.emergency_stop_cause('', 0.0)
    d.selected_input('autonomy', 0.0)
    moving(d, 1.0)
    d.selected_input('none', 1.0)
    d.tick(1.0 + STALE_SETTLE / 2)
    assert d.open == []
    d.tick(1.0 + STALE_SETTLE)
    incident, = d.open
    assert incident.kind == 'stale_input' and incident.time == 1.0
    assert "input 'autonomy' stopped driving in AUTONOMOUS" in incident.cause
    d.tick(10.0)
    d.selected_input('autonomy', 10.0)
    moving(d, 10.0)
    d.selected_input('none', 10.0)   # the mux zeroes, then says STOPPED
    d.operation_mode(Mode.STOPPED, False, 10.01)
    d.tick(11.0)
    assert d.open == []
    d.operation_mode(Mode.AUTONOMOUS, False, 12.0)
    d.selected_input('autonomy', 12.0)
    moving(d, 12.0, speed=0.0)   # at rest: a planner that ended with zero went quiet
    d.selected_input('none', 12.5)
    d.tick(13.0)
    assert d.open == []


def test_the_budget_drops_the_oldest_but_never_the_newest() -> None:
    assert over_budget([(1, 400), (2, 400), (3, 400)], 1000, keep=3) == [1]
    assert over_budget([(1, 400), (2, 400), (3, 2000)], 1000, keep=3) == [1, 2]
    assert over_budget([(1, 400)], 1000, keep=1) == []


def test_incidents_are_written_with_their_record_and_the_folder_kept_within_its_budget(
        tmp_path: pathlib.Path) -> None:
    from std_msgs.msg import String   # only to make CDR bytes
    from rclpy.serialization import serialize_message
    channel = Channel('std_msgs/msg/String', 'string data\n')
    reports: List[str] = []
    writer = IncidentWriter(IncidentFolder(tmp_path), 1000, lambda _, text: reports.append(text))
    from robot_sm.recording.ring import Entry
    for number in (1, 2, 3):
        entries = [Entry(k * S // 10, '/state', serialize_message(String(data='x' * 200)))
                   for k in range(3)]
        writer.submit(Incident(number, 'snapshot', 'asked', 0.1, 0.3), {'/state': channel},
                      entries)
    assert writer.close()
    folder = IncidentFolder(tmp_path)
    assert folder.ids() == [3] and folder.next_id() == 4
    record = folder.record(3)
    assert isinstance(record, IncidentRecord) and record.messages == 3
    assert (record.before, record.after) == pytest.approx((0.1, 0.1))
    assert [m.data for _, m in read_messages(record.mcap)['/state']] == ['x' * 200] * 3
    assert any('deleted incident 1' in line for line in reports), reports


def test_bad_settings_are_refused_naming_the_parameter() -> None:
    with pytest.raises(ConfigurationError, match="'buffer_seconds' must be >= 1"):
        RecorderSettings(buffer_seconds=0.0)
