"""robot_sim with ``robots``: three robots in one world over DDS, each under its namespace."""

import importlib.util
import time
from typing import Dict

from nav_msgs.msg import OccupancyGrid, Odometry
import pytest
from robot_sm import qos
from robot_sm.nodes.robot_sim import RobotSim
from robot_sm.parameters import ConfigurationError
from robot_sm.testing import Recorder, RosHarness, wait_until
from sensor_msgs.msg import JointState, LaserScan

ROBOTS = ['robot1', 'robot2', 'robot3']


def test_each_robot_has_its_own_topics_frames_and_start_pose(ros: RosHarness) -> None:
    ros.start_node(RobotSim, {'world': 'office', 'robots': ROBOTS})
    odom: Dict[str, Recorder[Odometry]] = {name: ros.record(Odometry, f'{name}/odom')
                                           for name in ROBOTS}
    truth = {name: ros.record(Odometry, f'{name}/base_pose_ground_truth') for name in ROBOTS}
    joints = {name: ros.record(JointState, f'{name}/joint_states') for name in ROBOTS}
    maps = {name: ros.record(OccupancyGrid, f'{name}/map', qos.STATE) for name in ROBOTS}
    scans = {name: ros.record(LaserScan, f'{name}/scan', qos.SENSOR) for name in ROBOTS}
    starts = {'robot1': (1.0, 1.0), 'robot2': (6.6, 1.0), 'robot3': (1.0, 5.0)}
    for name in ROBOTS:
        first = odom[name].wait_for()
        assert first.header.frame_id == f'{name}/odom'
        assert first.child_frame_id == f'{name}/base_footprint'
        p = first.pose.pose.position
        assert (p.x, p.y) == starts[name]
        assert truth[name].wait_for().header.frame_id == 'map'
        assert joints[name].wait_for().name == ['left_wheel_joint', 'right_wheel_joint']
        assert maps[name].wait_for().info.width == 160
        assert scans[name].wait_for().header.frame_id == f'{name}/base_footprint'

    # Only robot2 moves: its own wheel_command drives it, the others stay.
    wheels = ros.publisher(JointState, 'robot2/wheel_command', qos.COMMAND_OUT)
    ros.wait_for_subscribers(wheels)
    end = time.monotonic() + 1.0
    while time.monotonic() < end:
        wheels.publish(JointState(name=['left_wheel_joint', 'right_wheel_joint'],
                                  velocity=[5.0, 5.0]))
        time.sleep(0.05)
    wait_until(lambda: odom['robot2'].last.pose.pose.position.x > 6.7, timeout=5.0)
    for name in ('robot1', 'robot3'):
        p = odom[name].last.pose.pose.position
        assert (p.x, p.y) == starts[name]
    assert odom['robot2'].last.pose.pose.position.y == 1.0


def test_robots_see_each_other_in_their_scans(ros: RosHarness) -> None:
    # In the maze's open bottom row (walls at x = 0.05 and 4.95), robot1 at (0.5, 0.5) looks
    # along the row at robot5, standing at (2.5, 0.5): its ray ahead ends on robot5's disc.
    names = ['robot1', 'robot2', 'robot3', 'robot4', 'robot5']
    ros.start_node(RobotSim, {'world': 'maze', 'robots': names, 'sensor_rays': 4,
                              'sensor_range': 4.0})
    scan = ros.record(LaserScan, 'robot1/scan', qos.SENSOR).wait_for()
    ahead = scan.ranges[2]                       # rays at -pi, -pi/2, 0, pi/2 from the heading
    assert ahead == pytest.approx(2.0 - 0.1, abs=0.05)


def test_more_robots_than_start_poses_refuse_to_start(ros: RosHarness) -> None:
    names = [f'robot{i}' for i in range(1, 10)]
    with pytest.raises(ConfigurationError, match="parameter 'robots': 9 robots, but world "
                       "'maze' has start poses for 8"):
        ros.start_node(RobotSim, {'world': 'maze', 'robots': names})
    with pytest.raises(ConfigurationError, match="parameter 'robots'.*names a robot twice"):
        ros.start_node(RobotSim, {'world': 'maze', 'robots': ['a', 'a']})


@pytest.mark.skipif(importlib.util.find_spec('tf2_ros') is None, reason='tf2_ros not installed')
def test_tf_prefixes_every_robots_frames(ros: RosHarness) -> None:
    import tf2_ros
    ros.start_node(RobotSim, {'world': 'office', 'robots': ROBOTS})
    buffer = tf2_ros.Buffer()
    tf2_ros.TransformListener(buffer, ros.probe)
    for name, (x, y) in (('robot1', (1.0, 1.0)), ('robot3', (1.0, 5.0))):
        wait_until(lambda: buffer.can_transform('map', f'{name}/base_footprint',
                                                rclpy_time_zero()), timeout=10.0)
        t = buffer.lookup_transform('map', f'{name}/base_footprint', rclpy_time_zero())
        assert (t.transform.translation.x, t.transform.translation.y) == (x, y)


def rclpy_time_zero() -> object:
    from rclpy.time import Time
    return Time()
