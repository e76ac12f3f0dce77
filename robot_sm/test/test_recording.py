"""MCAP recordings: schemas as rosbag2 writes them, the recorder over DDS, robot-sm record."""

import pathlib
import time
from typing import Dict

from geometry_msgs.msg import PoseStamped
from mcap.reader import make_reader
from mcap_ros2.decoder import DecoderFactory
import pytest
from robot_sm import qos
from robot_sm.nodes.recorded_topics import read_msg as _read_msg
from robot_sm.nodes.topic_recorder import TopicRecorder
from robot_sm.recording.mcap_file import offered_qos_yaml
from robot_sm.recording.msgdef import message_definition, SEPARATOR
from robot_sm.testing import python_module_argv, RosHarness, wait_until
from sensor_msgs.msg import JointState
from std_msgs.msg import String
import yaml


def read_back(path: pathlib.Path) -> Dict[str, list]:
    """Return the decoded messages of an MCAP file by topic, read with mcap_ros2."""
    messages: Dict[str, list] = {}
    with open(path, 'rb') as stream:
        reader = make_reader(stream, decoder_factories=[DecoderFactory()])
        for _, channel, _, message in reader.iter_decoded_messages():
            messages.setdefault(channel.topic, []).append(message)
    return messages


def test_a_definition_holds_every_type_it_uses_once() -> None:
    text = message_definition('geometry_msgs/msg/PoseStamped', _read_msg)
    assert text.startswith(_read_msg('geometry_msgs', 'PoseStamped').rstrip('\n'))
    headers = [line for line in text.splitlines() if line.startswith('MSG: ')]
    assert headers == ['MSG: std_msgs/Header', 'MSG: geometry_msgs/Pose',
                       'MSG: builtin_interfaces/Time', 'MSG: geometry_msgs/Point',
                       'MSG: geometry_msgs/Quaternion']
    assert text.count(SEPARATOR) == 5
    arrays = message_definition('robot_sm_msgs/msg/WaypointArray', _read_msg)
    assert 'MSG: robot_sm_msgs/Waypoint' in arrays and 'MSG: geometry_msgs/Pose' in arrays
    with pytest.raises(LookupError):
        message_definition('no_such_msgs/msg/Thing', _read_msg)
    with pytest.raises(ValueError, match='not a message type name'):
        message_definition('PoseStamped', _read_msg)


def test_offered_qos_is_the_yaml_rosbag2_writes() -> None:
    text = offered_qos_yaml([{'history': 3, 'depth': 0, 'reliability': 1, 'durability': 1,
                              'liveliness': 1}])
    profile, = yaml.safe_load(text)
    assert profile['reliability'] == 1 and profile['durability'] == 1
    assert profile['deadline'] == {'sec': 9223372036, 'nsec': 854775807}
    assert profile['avoid_ros_namespace_conventions'] is False


def test_the_recorder_writes_the_suite_topics_with_types_counts_and_qos(
        ros: RosHarness, tmp_path: pathlib.Path) -> None:
    state = ros.publisher(String, 'robot_sm/state_info', qos.STATE)
    state.publish(String(data='Idle'))   # latched before the recorder starts
    poses = ros.publisher(PoseStamped, 'xr/right/pose', qos.SENSOR)
    joints = ros.publisher(JointState, 'joint_states', 10)
    other = ros.publisher(String, 'not_a_suite_topic', 10)
    path = tmp_path / 'run.mcap'
    recorder = ros.start_node(TopicRecorder, {'output': str(path), 'discovery_period': 0.1})
    assert wait_until(lambda: {'robot_sm/state_info', 'xr/right/pose', 'joint_states'} <= {
        topic.rsplit(ros.namespace.rstrip('/') + '/', 1)[-1] for topic in recorder.counts},
        timeout=10.0)
    ros.wait_for_subscribers(poses)
    ros.wait_for_subscribers(joints)
    for k in range(10):
        pose = PoseStamped()
        pose.pose.position.x = float(k)
        poses.publish(pose)
        if k < 5:
            joints.publish(JointState(name=['a'], position=[float(k)]))
        other.publish(String(data='ignored'))
        time.sleep(0.02)
    prefix = ros.namespace.rstrip('/')
    assert wait_until(lambda: recorder.counts.get(f'{prefix}/xr/right/pose') == 10
                      and recorder.counts.get(f'{prefix}/joint_states') == 5, timeout=10.0)
    ros.stop_node(recorder)   # finishes the file

    messages = read_back(path)
    assert set(messages) == {f'{prefix}/robot_sm/state_info', f'{prefix}/xr/right/pose',
                             f'{prefix}/joint_states'}
    assert [m.data for m in messages[f'{prefix}/robot_sm/state_info']] == ['Idle']
    assert [m.pose.position.x for m in messages[f'{prefix}/xr/right/pose']] == \
        [float(k) for k in range(10)]
    assert [list(m.position) for m in messages[f'{prefix}/joint_states']] == \
        [[float(k)] for k in range(5)]
    with open(path, 'rb') as stream:
        reader = make_reader(stream)
        assert reader.get_header().profile == 'ros2'
        summary = reader.get_summary()
        assert summary is not None
        types = {channel.topic: summary.schemas[channel.schema_id].name
                 for channel in summary.channels.values()}
        assert types[f'{prefix}/xr/right/pose'] == 'geometry_msgs/msg/PoseStamped'
        assert types[f'{prefix}/robot_sm/state_info'] == 'std_msgs/msg/String'
        counts = {summary.channels[i].topic: n
                  for i, n in summary.statistics.channel_message_counts.items()}
        assert counts[f'{prefix}/joint_states'] == 5
        for channel in summary.channels.values():
            assert channel.message_encoding == 'cdr'
            assert summary.schemas[channel.schema_id].encoding == 'ros2msg'
            assert channel.metadata['topic_type_hash'].startswith('RIHS01_')
            offered = yaml.safe_load(channel.metadata['offered_qos_profiles'])
            latched = channel.topic.endswith('state_info')
            assert [p['durability'] for p in offered] == [1 if latched else 2]


def test_robot_sm_record_records_for_a_duration_or_until_ctrl_c(
        ros: RosHarness, tmp_path: pathlib.Path) -> None:
    state = ros.publisher(String, 'robot_sm/state_info', qos.STATE)
    state.publish(String(data='Teleoperation'))
    topic = f"{ros.namespace.rstrip('/')}/robot_sm/state_info"
    timed = ros.start_process(python_module_argv(
        'robot_sm.frontends.cli', '--namespace', ros.namespace, 'record',
        '-o', str(tmp_path / 'a.mcap'), '--duration', '1'))
    assert timed.wait(30.0) == 0   # it ends by itself
    assert 'messages on' in timed.output
    read_back(tmp_path / 'a.mcap')

    until_stopped = ros.start_process(python_module_argv(
        'robot_sm.frontends.cli', '--namespace', ros.namespace, 'record',
        '-o', str(tmp_path / 'b.mcap')))
    assert wait_until(lambda: f'subscribed to {topic}' in until_stopped.output, timeout=30.0)
    time.sleep(2.0)  # the latched message's delivery, on a busy machine
    assert until_stopped.stop(timeout=10.0) == 0   # SIGINT
    assert f'      1  {topic}' in until_stopped.output, until_stopped.output
    assert '1 messages on 1 topics' in until_stopped.output
    assert [m.data for m in read_back(tmp_path / 'b.mcap')[topic]] == ['Teleoperation']
    read_back(tmp_path / 'b.mcap')   # a complete file: it has its summary
