"""
The control lease and the audit log: pure, time injected.

Acquire, take, stale, give up, the refusals' texts, the raw ROS policy and a restart for the
lease; appending, flushing, rotating and reading back for the audit log.
"""

import json
import pathlib
import subprocess
import sys

from robot_sm.contract import Command
from robot_sm.gateway.audit import AuditLog, read_records, Record, selected
from robot_sm.gateway.control import ControlLease, FREE_COMMANDS, NEEDS_CONTROL, raw_refusal
from robot_sm.gateway.request import OperatorId

ALICE = OperatorId('alice', 'cli', 'station-1')
BOB = OperatorId('bob', 'web', '10.0.0.7')
RAW = OperatorId('', 'ros')
#: Wall-clock seconds of 10:00:00 local time on some day: the refusals name times.
WALL = 1_795_000_000.0


def lease(idle: float = 60.0, raw_ros_open: bool = False) -> ControlLease:
    return ControlLease(idle, raw_ros_open, wall=lambda: WALL)


def test_what_needs_control_and_what_never_does() -> None:
    assert Command.ENGAGE_EMERGENCY_STOP in FREE_COMMANDS
    assert {Command.SELECT_MODE, Command.RELEASE_EMERGENCY_STOP, Command.GO_TO,
            Command.CANCEL_GOAL, Command.ADD_WAYPOINT, Command.SET_REVERSE, Command.PAUSE,
            Command.CONTINUE, Command.START_WAYPOINT_FOLLOWING} <= NEEDS_CONTROL
    assert not FREE_COMMANDS & NEEDS_CONTROL


def test_the_first_command_acquires_control_and_held_control_is_never_taken_implicitly() -> None:
    control = lease()
    decision = control.check(ALICE, Command.SELECT_MODE, now=0.0)
    assert (decision.allowed, decision.acquired) == (True, True)
    assert control.holds(ALICE)
    again = control.check(ALICE, Command.GO_TO, now=1.0)
    assert (again.allowed, again.acquired) == (True, False)
    refused = control.check(BOB, Command.SELECT_MODE, now=2.0)
    assert not refused.allowed and control.holds(ALICE)
    assert refused.refusal.startswith('control is held by alice (cli, station-1) since ')
    assert 'robot-sm control take (it is not stale: you take it from them)' in refused.refusal
    # A STOP never needs it.
    assert control.check(BOB, Command.ENGAGE_EMERGENCY_STOP, now=2.0).allowed


def test_acquire_works_only_when_free_or_stale_and_take_always_says_from_whom() -> None:
    control = lease(idle=60.0)
    assert control.acquire(ALICE, 0.0, now=0.0) == (True, 'control acquired by alice')
    refused = control.acquire(BOB, 0.0, now=10.0)
    assert not refused.success and 'held by alice' in refused.message
    taken = control.take(BOB, 0.0, now=10.0)
    assert taken.success and taken.message.startswith('control taken by bob from alice')
    assert control.holds(BOB) and control.taken_from == ALICE
    # alice is told on her next command.
    told = control.check(ALICE, Command.SELECT_MODE, now=11.0)
    assert told.refusal.startswith('control was taken from you by bob at ')


def test_a_silent_holder_goes_stale_and_anyone_acquires_without_forcing() -> None:
    control = lease(idle=60.0)
    control.acquire(BOB, 3.0, now=0.0)  # a page keeping it alive every second or so
    control.keep(BOB, 3.0, now=2.0)
    assert not control.stale(now=4.9)
    assert control.stale(now=5.1)
    stale = control.check(ALICE, Command.SELECT_MODE, now=5.1)
    assert not stale.allowed and 'stale: silent for 3 s' in stale.refusal
    assert control.acquire(ALICE, 0.0, now=5.2) == (True, 'control acquired by alice (from '
                                                          'bob, stale)')
    # Without a keep-alive of its own, the suite's idle time.
    assert not control.stale(now=65.1) and control.stale(now=65.3)
    # The holder's own command makes it fresh again.
    control.check(ALICE, Command.GO_TO, now=70.0)
    assert not control.stale(now=70.0)


def test_give_up_by_the_holder_only_and_keep_alives_from_the_holder_only() -> None:
    control = lease()
    control.acquire(ALICE, 0.0, now=0.0)
    refused = control.release(BOB, now=1.0)
    assert not refused.success and 'only the holder gives control up' in refused.message
    assert not control.keep(BOB, 0.0, now=1.0).success
    assert control.release(ALICE, now=2.0) == (True, 'alice gave control up: nobody holds it')
    assert control.holder is None
    assert control.release(ALICE, now=3.0) == (True, 'nobody holds control; nothing changed')


def test_raw_ros_may_operate_a_robot_nobody_holds_and_is_refused_while_one_does() -> None:
    control = lease()
    free = control.check(RAW, Command.SELECT_MODE, now=0.0)
    assert (free.allowed, free.acquired) == (True, False)  # raw callers never hold control
    assert control.holder is None
    control.acquire(ALICE, 0.0, now=1.0)
    refused = control.check(RAW, Command.SELECT_MODE, now=2.0)
    assert not refused.allowed
    assert refused.refusal.startswith('control is held by alice')
    assert 'raw ROS requests that move the robot are refused' in refused.refusal
    assert control.check(RAW, Command.ENGAGE_EMERGENCY_STOP, now=2.0).allowed
    assert not control.take(RAW, 0.0, now=3.0).success  # control needs an operator
    # The lab setting opens raw ROS.
    opened = lease(raw_ros_open=True)
    opened.acquire(ALICE, 0.0, now=0.0)
    assert opened.check(RAW, Command.SELECT_MODE, now=1.0).allowed
    # The nodes' check from the published control.
    assert raw_refusal(True, 'alice', '10:00:00', False).startswith(
        'control is held by alice since 10:00:00: raw ROS requests')
    assert raw_refusal(True, 'alice', '10:00:00', True) == ''
    assert raw_refusal(False, '', '', False) == ''


def test_a_restart_keeps_nothing() -> None:
    control = lease()
    control.acquire(ALICE, 0.0, now=0.0)
    restarted = lease()
    assert restarted.holder is None
    assert restarted.check(BOB, Command.SELECT_MODE, now=0.0).acquired


def test_the_audit_log_appends_flushed_lines_and_reads_them_back(tmp_path: pathlib.Path) -> None:
    log = AuditLog(str(tmp_path / 'robot' / 'audit.jsonl'))
    first = Record(WALL, 'command', 'alice', 'cli', 'station-1', 'select_mode',
                   {'mode': 'autonomy'}, True, 'done', 'mode AUTONOMOUS (was STOPPED)')
    log.append(first)
    # Flushed: another process reads it at once, before the file is closed.
    seen = subprocess.run([sys.executable, '-c', f'print(open({str(log.path)!r}).read())'],
                          capture_output=True, text=True, check=True).stdout
    assert json.loads(seen.splitlines()[0])['operator'] == 'alice'
    log.append(Record(WALL + 5, 'stop', 'bob', 'web', '10.0.0.7', 'engage_emergency_stop'))
    with open(log.path, 'a') as file:
        file.write('{"time": 1, "kind": "comm')  # a line cut by a power loss
    records = list(read_records(log.paths()))
    assert records == [first, Record(WALL + 5, 'stop', 'bob', 'web', '10.0.0.7',
                                     'engage_emergency_stop')]
    assert selected(records, operator='bob')[0].operator == 'bob'
    assert selected(records, since=WALL + 1) == records[1:]
    assert selected(records, limit=1) == records[1:]


def test_the_audit_log_rotates_within_its_budget(tmp_path: pathlib.Path) -> None:
    log = AuditLog(str(tmp_path / 'audit.jsonl'), max_bytes=4096, files=3)
    for number in range(300):
        log.append(Record(WALL + number, 'command', 'alice', command='add_waypoint',
                          message='x' * 40))
    log.close()
    files = log.paths()
    assert [path.name for path in files] == ['audit.jsonl.2', 'audit.jsonl.1', 'audit.jsonl']
    assert sum(path.stat().st_size for path in files) <= 3 * 4096
    times = [record.time for record in read_records(files)]
    assert times == sorted(times) and times[-1] == WALL + 299  # the newest kept, in order
