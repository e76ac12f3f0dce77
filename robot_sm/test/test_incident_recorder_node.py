"""
The incident recorder over DDS: what the suite does becomes an incident file and a record.

Judged from the files the recorder wrote, read back with the project's reader, and from what
``robot-sm incidents`` and ``robot-sm snapshot`` print. The simulated robot's incidents (an
e-stop while driving, the recorder killed while driving) are in test_incident_recorder_sim.py.
"""

import json
import os
import pathlib
import time
from typing import Any, Dict

from operator_suite import run_cli, StartSuite
import pytest
from robot_sm import qos
from robot_sm.bringup.parameter_files import shipped_parameter_files
from robot_sm.nodes.incident_recorder import IncidentRecorder, SNAPSHOT
from robot_sm.parameters import ConfigurationError
from robot_sm.recording.incident_files import IncidentFolder, IncidentRecord
from robot_sm.recording.mcap_read import read_messages
from robot_sm.testing import DEFAULT_TIMEOUT, python_module_argv, ros_args, RosHarness, wait_until
from std_msgs.msg import Bool, String, UInt8MultiArray
from std_srvs.srv import SetBool, Trigger


def recorder_parameters(folder: pathlib.Path, **overrides: Any) -> Dict[str, Any]:
    """Return the recorder's parameters for a test: its folder, a second after each incident."""
    return {'directory': str(folder), 'after_seconds': 1.0, 'buffer_seconds': 10.0,
            'discovery_period': 0.2, **overrides}


def wait_for_record(folder: pathlib.Path, number: int,
                    timeout: float = DEFAULT_TIMEOUT) -> IncidentRecord:
    """Wait until the recorder wrote incident ``number``; return its record."""
    found = []
    if not wait_until(lambda: found.append(IncidentFolder(folder).record(number)) or
                      found[-1] is not None, timeout):
        raise TimeoutError(f'incident {number} not written in {folder} within {timeout} s')
    return found[-1]


def test_heartbeat_silence_is_an_incident_with_the_mux_s_reason_and_the_link_lost(
        ros: RosHarness, start_scripted: StartSuite, tmp_path: pathlib.Path) -> None:
    start_scripted(parameter_files=shipped_parameter_files(sim=True, remote=True))
    recorder = ros.start_node(IncidentRecorder, recorder_parameters(tmp_path))
    heartbeat = ros.publisher(Bool, 'robot_sm/operator_heartbeat', qos.HEARTBEAT)
    present = ros.record(Bool, 'robot_sm/operator_present', qos.STATE)
    causes = ros.record(String, 'robot_sm/emergency_stop_cause', qos.STATE)
    # The operator beats until the mux hears it and the recorder has heard where things stand,
    # and releases the e-stop (engaged at start on a loaded machine: no beat came in time).
    heard = {f'{ros.namespace}/robot_sm/{topic}'
             for topic in ('emergency_stop_cause', 'operator_present', 'operator_heartbeat')}
    deadline, released = time.monotonic() + DEFAULT_TIMEOUT, 0.0
    while not released or time.monotonic() - released < 0.5 or \
            causes.last is None or causes.last.data:
        heartbeat.publish(Bool(data=False))
        time.sleep(0.1)
        assert time.monotonic() < deadline, 'the mux or the recorder never heard a beat'
        if not released and present.messages and present.last.data and \
                heard <= recorder.ring.topics():
            assert ros.call(SetBool, 'robot_sm/emergency_stop', SetBool.Request(data=False))
            released = time.monotonic()
    silent = time.monotonic()   # the operator's link is cut: no more beats
    record = wait_for_record(tmp_path, 1)
    assert record.kind == 'emergency_stop'
    assert record.cause == 'emergency stop engaged: heartbeat silent for more than 1 s'
    assert any(line.startswith('operator link lost: operator heartbeat silent')
               for line in record.also), record.also
    assert record.operator == ''
    assert record.operator_note.startswith('no operator in the audit log')
    messages = read_messages(record.mcap)
    beats = messages[f'{ros.namespace}/robot_sm/operator_heartbeat']
    trigger = int(record.stamp * 1e9)
    assert beats and all(stamp < trigger for stamp, _ in beats)
    # The last beat came about the heartbeat timeout (1 s) before the mux stopped.
    assert 0.8 < (trigger - beats[-1][0]) * 1e-9 < 1.0 + 1.0
    causes = [m.data for _, m in messages[f'{ros.namespace}/robot_sm/emergency_stop_cause']]
    assert causes[-1] == record.cause
    assert record.after >= 0.9 and time.monotonic() - silent < DEFAULT_TIMEOUT


def test_a_failing_plugin_state_is_an_incident_in_the_suite_s_words(
        ros: RosHarness, start_scripted: StartSuite, tmp_path: pathlib.Path) -> None:
    suite = start_scripted({'navigation_plugin': 'FaultyState',
                            'FaultyState.fail_in': 'on_active'})
    recorder = ros.start_node(IncidentRecorder, recorder_parameters(tmp_path))
    assert wait_until(lambda: f'{ros.namespace}/robot_sm/state' in recorder.ring.topics(),
                      DEFAULT_TIMEOUT)   # where things stand: the state before the failure
    suite.client.add_waypoint(1.0, 0.0)
    assert suite.client.set_mode('autonomy').success
    task = suite.client.follow_waypoints()
    result = task.wait(DEFAULT_TIMEOUT)
    record = wait_for_record(tmp_path, 1)
    assert record.kind == 'activity_failed'
    assert record.cause == 'W: Faulty raised in on_active: RuntimeError: broken on_active'
    assert result.outcome.startswith(record.cause)   # what the operator's task was told
    states = read_messages(record.mcap)[f'{ros.namespace}/robot_sm/state']
    assert states[-1][1].last_outcome_text == record.cause


def test_snapshots_by_hand_and_the_disk_budget_dropping_the_oldest_and_saying_so(
        ros: RosHarness, tmp_path: pathlib.Path) -> None:
    folder = tmp_path / 'incidents'
    recorder = ros.start_process(python_module_argv('robot_sm.nodes.incident_recorder', *ros_args(
        ros.namespace, recorder_parameters(folder, topics=['blob'], buffer_mib=1.0,
                                           disk_budget_mib=1.0))))
    blob = ros.publisher(UInt8MultiArray, 'blob', qos.EVENTS)
    topic = f'{ros.namespace}/blob'
    assert wait_until(lambda: f'new: {topic}' in recorder.output, 30.0), recorder.output
    ros.wait_for_subscribers(blob)
    sent = []
    for number in (1, 2):
        for _ in range(2):   # random bytes: 0.8 MiB on disk, more than the budget left
            sent.append(os.urandom(400_000))
            blob.publish(UInt8MultiArray(data=sent[-1]))
        if number == 1:
            command = run_cli(ros.namespace, 'snapshot', timeout=10.0)
            assert command.returncode == 0, command.stderr
            answer = command.stdout
        else:
            response = ros.call(Trigger, SNAPSHOT)
            assert response.success
            answer = response.message
        assert f'incident {number}: the 10 s before' in answer
        record = wait_for_record(folder, number)
        got = [bytes(m.data) for _, m in read_messages(record.mcap)[topic]]
        # The ring as it was (within its 1 MiB), and what came after: whole, in order.
        assert len(got) >= 2 and got == sent[len(sent) - len(got):]
    assert wait_until(lambda: 'deleted incident 1' in recorder.output, DEFAULT_TIMEOUT)
    assert IncidentFolder(folder).ids() == [2]
    assert 'disk budget 1 MiB reached: deleted incident 1' in recorder.output

    listed = run_cli(ros.namespace, 'incidents', '--dir', str(folder), '--json')
    assert [r['id'] for r in json.loads(listed.stdout)] == [2]
    shown = run_cli(ros.namespace, 'incidents', 'show', '2', '--dir', str(folder))
    assert shown.returncode == 0, shown.stderr
    assert 'incident   2: manual snapshot\n' in shown.stdout
    assert 'cause      snapshot requested (robot_sm/snapshot)\n' in shown.stdout
    assert record.mcap in shown.stdout
    gone = run_cli(ros.namespace, 'incidents', 'show', '1', '--dir', str(folder))
    assert gone.returncode == 1 and 'no incident 1' in gone.stdout


def test_a_recorder_with_a_budget_smaller_than_its_buffer_refuses_to_start(
        ros: RosHarness, tmp_path: pathlib.Path) -> None:
    with pytest.raises(ConfigurationError, match="'disk_budget_mib' must be at least"):
        ros.start_node(IncidentRecorder, recorder_parameters(tmp_path, disk_budget_mib=10.0))
