"""
The web console's operating parts that need no ROS and no server, with time injected.

Who a page operates as (the token's label, the name given at the login), the drive stream (its
limits, the zero of a silent stream and of a page that goes), the drive message, the incidents
listed, and the e-stop's cause, which may come before the mux's mode.
"""

import dataclasses
import math
import pathlib

import pytest
from robot_sm.frontends.web.drive import (
    drive_limits,
    DRIVE_SILENCE,
    DriveLimits,
    DriveStream,
    FALLBACK_ANGULAR,
    FALLBACK_LINEAR,
)
from robot_sm.frontends.web.events import EstopEvents
from robot_sm.frontends.web.incident_watch import incidents_view, IncidentWatch
from robot_sm.frontends.web.protocol import Drive, parse, ProtocolError
from robot_sm.frontends.web.session import page_operator
from robot_sm.frontends.web.tokens import (
    AccessTokens,
    checked_name,
    new_token,
    read_token_file,
    Role,
    Sessions,
    TokenError,
)
from robot_sm.recording.incident_files import IncidentRecord

# -- who a page operates as ----------------------------------------------------------------------


def test_a_token_file_holds_tokens_with_the_labels_of_their_holders(
        tmp_path: pathlib.Path) -> None:
    alice, bob, shared = new_token(), new_token(), new_token()
    path = tmp_path / 'tokens'
    path.write_text(f'# operators\n{alice} alice\n\n{bob}   bob.k\n{shared}\n')
    path.chmod(0o600)
    entries = read_token_file(path)
    assert entries == [(alice, 'alice'), (bob, 'bob.k'), (shared, '')]
    tokens = AccessTokens(entries)
    assert tokens.grant_of(bob) == (Role.OPERATOR, 'bob.k')
    assert tokens.grant_of(shared) == (Role.OPERATOR, '')
    assert tokens.grant_of(alice + 'x') is None
    with pytest.raises(TokenError, match='must differ'):
        AccessTokens(entries, [(alice, 'watcher')])
    for line, says in ((f'{alice} al ice', 'at most one label'),
                       (f'{alice} alice@10.0.0.1', 'cannot name an operator'), ('# none', '22')):
        path.write_text(line + '\n')
        with pytest.raises(TokenError, match=says):
            read_token_file(path)


def test_two_people_at_one_address_are_two_operators_named_by_their_session() -> None:
    sessions = Sessions()
    alice = sessions.start(Role.OPERATOR, 0.0, checked_name('alice'))
    bob = sessions.start(Role.OPERATOR, 0.0, 'bob')
    anonymous = sessions.start(Role.OPERATOR, 0.0)
    names = [page_operator(sessions.name_of(session), '10.0.0.7').name
             for session in (alice, bob, anonymous)]
    assert names == ['alice@10.0.0.7', 'bob@10.0.0.7', 'web@10.0.0.7']
    assert page_operator('alice', '10.0.0.8').address == '10.0.0.8'
    assert sessions.end(bob) and sessions.name_of(bob) == ''
    for name in ('alice@10.0.0.1', 'a b', 'x' * 33, '<script>'):
        with pytest.raises(TokenError, match='cannot name an operator'):
            checked_name(name)


# -- driving -------------------------------------------------------------------------------------


def test_the_page_drives_within_the_mux_s_limits_or_its_own_when_the_mux_sets_none() -> None:
    assert drive_limits(0.5, 2.0) == DriveLimits(0.5, 2.0, True)
    assert drive_limits(0.0, 2.0) == DriveLimits(FALLBACK_LINEAR, 2.0, False)
    assert drive_limits(None, math.inf) == DriveLimits(FALLBACK_LINEAR, FALLBACK_ANGULAR, False)
    stream = DriveStream()
    assert stream.take(3.0, -9.0, DriveLimits(0.5, 2.0, True), 0.0) == (0.5, -2.0)
    assert stream.take(-0.2, 0.1, DriveLimits(0.5, 2.0, True), 0.05) == (-0.2, 0.1)


def test_a_silent_drive_gets_one_zero_and_so_does_a_page_that_goes_while_driving() -> None:
    stream, limits = DriveStream(), DriveLimits()
    assert stream.due(0.0) == math.inf and not stream.end()  # never drove: nothing to stop
    stream.take(0.3, 0.0, limits, 1.0)
    assert stream.due(1.1) == pytest.approx(DRIVE_SILENCE - 0.1)
    stream.take(0.3, 0.0, limits, 1.2)  # 20 a second: never silent
    assert not stream.silent(1.2 + DRIVE_SILENCE - 0.01)
    assert stream.silent(1.2 + DRIVE_SILENCE)  # one zero, then nothing more
    assert not stream.silent(5.0) and stream.due(5.0) == math.inf
    stream.take(0.0, 0.0, limits, 6.0)  # the page's own zero: nothing to add
    assert stream.due(6.0) == math.inf and not stream.end()
    stream.take(0.0, 0.5, limits, 7.0)
    assert stream.end() and not stream.end()


def test_a_drive_message_is_checked_like_every_other() -> None:
    assert parse('{"type": "drive", "seq": 4, "linear": 0.25, "angular": -1}') == Drive(
        4, 0.25, -1.0)
    for message, says in (('{"type": "drive", "linear": 1e999, "angular": 0}', 'finite'),
                          ('{"type": "drive", "linear": "1", "angular": 0}', 'a number'),
                          ('{"type": "drive", "linear": 0}', 'angular must be a number'),
                          ('{"type": "drive", "linear": 11, "angular": 0}', 'within -10..10'),
                          ('{"type": "drive", "linear": 0, "angular": 0, "by": "bob"}',
                           "unknown field 'by'")):
        with pytest.raises(ProtocolError, match=says):
            parse(message)


# -- incidents, the e-stop's cause ---------------------------------------------------------------


def record(number: int) -> IncidentRecord:
    return IncidentRecord(id=number, kind='estop', cause='emergency stop engaged: STOP by bob',
                          time='2026-11-28T11:16:10.045Z', stamp=1.0, speed=0.4213,
                          time_to_zero=0.0123, time_to_rest=0.81, distance=0.2134)


def test_the_incidents_are_listed_newest_first_with_their_figures(
        tmp_path: pathlib.Path) -> None:
    shown = []
    watch = IncidentWatch(tmp_path / 'incidents', lambda kind, value: shown.append(value))
    watch.poll(0.0)
    assert not shown[-1]['readable'] and 'No incidents can be read here' in shown[-1]['note']
    (tmp_path / 'incidents').mkdir()
    watch.poll(1.0)
    assert len(shown) == 1  # not looked at again before its period
    watch.poll(2.0)
    assert shown[-1]['readable'] and shown[-1]['note'].startswith('No incidents kept')
    for number in (1, 2):
        (tmp_path / 'incidents' / f'incident-{number:04d}.json').write_text(
            record(number).to_json())
    watch.poll(4.0)
    view = shown[-1]
    assert [row['id'] for row in view['incidents']] == [2, 1] and view['note'] == ''
    assert view['incidents'][0] == {
        'id': 2, 'time': '2026-11-28T11:16:10.045Z', 'kind': record(2).label,
        'cause': 'emergency stop engaged: STOP by bob', 'operator': '', 'speed': 0.4213,
        'time_to_zero': 0.0123, 'time_to_rest': 0.81, 'distance': 0.2134}
    # As kept: the page rounds once, as robot-sm incidents does (0.0049 is 0.00 m, not 0.01 m).
    short = dataclasses.replace(record(3), distance=0.0049)
    assert incidents_view(tmp_path, [short])['incidents'][0]['distance'] == 0.0049
    watch.poll(6.0)
    assert len(shown) == 3  # nothing changed: nothing sent
    assert incidents_view(tmp_path, [record(n) for n in range(1, 31)])['count'] == 30
    assert len(incidents_view(tmp_path, [record(n) for n in range(1, 31)])['incidents']) == 20


def test_an_e_stop_takes_the_cause_the_mux_published_just_before_its_mode() -> None:
    estop = EstopEvents(wait=2.5)
    assert estop.mode(False, 0.0) == []
    assert estop.reason('emergency stop engaged: STOP by bob (cli)', 1.0) == []
    engaged = estop.mode(True, 1.01)
    assert [(e['time'], e['cause']) for e in engaged] == [
        (1.01, 'emergency stop engaged: STOP by bob (cli)')]
    assert estop.due(9.0) == []  # told once
    assert estop.reason('', 10.0) == [] and [e['text'] for e in estop.mode(False, 10.0)] == [
        'e-stop released']
    assert estop.mode(True, 11.0) == []  # no cause yet: the old one is not taken


def test_a_cause_taken_before_a_late_released_mode_is_still_the_next_engagement_s() -> None:
    # The mux republishes its mode every second: one published just before a STOP may be taken
    # after the STOP's cause, which came first on the other topic.
    estop = EstopEvents(wait=2.5)
    assert estop.mode(False, 0.0) == []
    assert estop.reason('STOP by bob (cli)', 1.0) == []
    assert estop.mode(False, 1.01) == []  # the late keep-alive, from before the STOP
    engaged = estop.mode(True, 1.02)
    assert [(e['time'], e['cause']) for e in engaged] == [(1.02, 'STOP by bob (cli)')]
