"""The robot_sim node over DDS: driving, walls, the map topic, the sensor, frames, start poses."""

import importlib.util
import math
import sys
import time
from typing import Callable

from geometry_msgs.msg import Twist
from nav_msgs.msg import OccupancyGrid, Odometry
import pytest
from robot_sm import qos
from robot_sm.nodes.robot_sim import RobotSim
from robot_sm.testing import ros_args, RosHarness, SCHEDULING_SLACK, wait_until
from sensor_msgs.msg import JointState


def test_wheel_commands_drive_the_robot_and_a_wall_stops_it(ros: RosHarness) -> None:
    # In the office corridor (y = 2.6 .. 3.5 m), facing its upper wall between two doors.
    ros.start_node(RobotSim, {'world': 'office', 'start_x': 2.3, 'start_y': 3.0,
                              'start_yaw': math.pi / 2})
    odom = ros.record(Odometry, 'odom')
    wheels = ros.publisher(JointState, 'wheel_command', qos.COMMAND_OUT)
    ros.wait_for_subscribers(wheels)
    first = odom.wait_for()
    assert first.pose.pose.position.y == 3.0 and first.header.frame_id == 'odom'

    def drive(left: float, right: float, until: Callable[[Odometry], bool]) -> Odometry:
        """Command the wheels until the odometry satisfies ``until``; return that odometry."""
        end = time.monotonic() + 20.0   # simulated time falls behind on a loaded machine
        while time.monotonic() < end:
            wheels.publish(JointState(name=['right_wheel_joint', 'left_wheel_joint'],
                                      velocity=[right, left]))
            last = odom.last
            if last is not None and until(last):
                return last
            time.sleep(0.05)
        raise AssertionError(f'the odometry never got there: {odom.last}')

    # 5 rad/s on both 0.03 m wheels: 0.15 m/s straight ahead.
    moving = drive(5.0, 5.0, lambda m: m.pose.pose.position.y > 3.1)
    assert moving.twist.twist.linear.x == 0.15
    assert abs(moving.pose.pose.position.x - 2.3) < 1e-6
    # Keep driving: the wall at y = 3.5 m stops the 0.1 m disc at y = 3.4 m at most.
    stopped = drive(5.0, 5.0, lambda m: m.twist.twist.linear.x == 0.0)
    assert 3.3 < stopped.pose.pose.position.y <= 3.4
    assert abs(stopped.pose.pose.position.x - 2.3) < 1e-6
    # Backing away works, and silence stops the robot within the command timeout.
    drive(-5.0, -5.0, lambda m: m.twist.twist.linear.x == -0.15)
    silent = time.monotonic()
    assert wait_until(lambda: odom.last.twist.twist.linear.x == 0.0
                      and odom.last.twist.twist.angular.z == 0.0, 0.8 + SCHEDULING_SLACK)
    assert time.monotonic() - silent > 0.2   # it kept going until the command timed out


def test_cmd_vel_input_and_the_latched_full_map(ros: RosHarness) -> None:
    ros.start_node(RobotSim, {'world': 'maze', 'command_input': 'cmd_vel', 'start_x': 0.5,
                              'start_y': 0.5, 'start_yaw': math.pi / 2})
    grid = ros.record(OccupancyGrid, 'map', qos.STATE).wait_for()
    assert (grid.info.width, grid.info.height) == (100, 100)
    assert abs(grid.info.resolution - 0.05) < 1e-6
    assert grid.header.frame_id == 'map'
    assert -1 not in grid.data and 100 in grid.data
    odom = ros.record(Odometry, 'odom')
    cmd = ros.publisher(Twist, 'cmd_vel', qos.COMMAND_OUT)
    ros.wait_for_subscribers(cmd)
    msg = Twist()
    msg.linear.x = 0.2
    for _ in range(10):
        cmd.publish(msg)
        time.sleep(0.05)
    position = odom.last.pose.pose.position
    assert position.y > 0.55 and abs(position.x - 0.5) < 1e-6


def test_reveal_mode_publishes_what_the_sensor_saw(ros: RosHarness) -> None:
    ros.start_node(RobotSim, {'world': 'office', 'reveal_map': True, 'sensor_range': 2.0,
                              'start_x': 1.0, 'start_y': 1.0})
    grid = ros.record(OccupancyGrid, 'map', qos.STATE).wait_for()
    known = sum(1 for v in grid.data if v >= 0)
    assert 0 < known < len(grid.data) / 3
    width = grid.info.width
    assert grid.data[20 * width + 20] == 0  # the robot's own cell is free
    assert grid.data[100 * width + 150] == -1  # the far corner is unknown


def test_an_unknown_world_refuses_to_start(ros: RosHarness) -> None:
    process = ros.start_process([sys.executable, '-m', 'robot_sm.nodes.robot_sim',
                                 *ros_args(ros.namespace, {'world': 'no_such_world'})])
    assert process.wait(20.0) == 2
    assert "parameter 'world'" in process.output and 'no_such_world' in process.output


def test_the_arm_follows_joint_command_within_its_urdf_limits(ros: RosHarness) -> None:
    arm = ['shoulder_pan', 'shoulder_lift', 'elbow_flex', 'wrist_flex', 'wrist_roll', 'gripper']
    ros.start_node(RobotSim, {'arm_joint_names': arm})
    states = ros.record(JointState, 'joint_states')
    commands = ros.publisher(JointState, 'joint_command', qos.COMMAND_OUT)
    ros.wait_for_subscribers(commands)
    first = states.wait_for()
    assert first.name == ['left_wheel_joint', 'right_wheel_joint', *arm]
    assert list(first.position[2:]) == [0.0] * 6
    # The pan 1.2 rad away, the gripper past its 1.745 rad limit; NaN for the elbow is ignored.
    commands.publish(JointState(name=['gripper', 'shoulder_pan', 'elbow_flex'],
                                position=[3.0, 1.2, math.nan]))
    reached = states.wait_for(lambda m: abs(m.position[2] - 1.2) < 1e-3
                              and abs(m.position[7] - 1.74533) < 1e-3, timeout=5.0)
    assert reached.position[4] == 0.0
    moving = [m for m in states.messages if 0.0 < m.position[2] < 1.2]
    assert moving, 'the pan joint jumped instead of moving'
    assert max(abs(m.velocity[2]) for m in states.messages) <= 6.0 + 1e-6   # URDF: 6 rad/s
    assert max(m.position[7] for m in states.messages) <= 1.74533 + 1e-9


def test_an_unknown_arm_joint_refuses_to_start(ros: RosHarness) -> None:
    process = ros.start_process([sys.executable, '-m', 'robot_sm.nodes.robot_sim',
                                 *ros_args(ros.namespace, {'arm_joint_names': ['knee']})])
    assert process.wait(20.0) == 2
    assert "parameter 'arm_joint_names'" in process.output and "'knee'" in process.output


def test_each_shipped_world_starts_the_robot_at_its_own_start_pose(ros: RosHarness) -> None:
    # No start parameters: the maze's start pose, not a default inside one of its walls.
    ros.start_node(RobotSim, {'world': 'maze'})
    odom = ros.record(Odometry, 'odom').wait_for()
    assert (odom.pose.pose.position.x, odom.pose.pose.position.y) == (0.5, 0.5)


def test_the_pose_in_the_map_frame_is_published_beside_the_odometry(ros: RosHarness) -> None:
    ros.start_node(RobotSim, {'world': 'office', 'start_x': 2.3, 'start_y': 3.0,
                              'start_yaw': math.pi / 2})
    odom = ros.record(Odometry, 'odom')
    ground_truth = ros.record(Odometry, 'base_pose_ground_truth')
    in_map = ground_truth.wait_for()
    assert (in_map.header.frame_id, in_map.child_frame_id) == ('map', 'base_footprint')
    in_odom = odom.wait_for()
    assert (in_odom.header.frame_id, in_odom.child_frame_id) == ('odom', 'base_footprint')
    assert in_map.pose.pose == in_odom.pose.pose  # map -> odom is the identity


@pytest.mark.skipif(importlib.util.find_spec('tf2_ros') is None,
                    reason='tf2_ros is not installed (no wheels exist; a ROS 2 install has it)')
def test_tf_gives_the_robot_in_the_map_frame_through_odom(ros: RosHarness) -> None:
    import tf2_ros
    from rclpy.node import Node
    from rclpy.time import Time
    ros.start_node(RobotSim, {'world': 'office', 'start_x': 2.3, 'start_y': 3.0,
                              'start_yaw': math.pi / 2})
    # In the harness's context /tf and /tf_static are the test's own (see RosHarness).
    listener_node = ros.add_node(Node('tf_listener', namespace=ros.namespace,
                                      context=ros.context))
    buffer = tf2_ros.Buffer()
    tf2_ros.TransformListener(buffer, listener_node)
    assert wait_until(lambda: buffer.can_transform('map', 'base_footprint', Time()), 10.0), \
        buffer.all_frames_as_string()
    assert buffer.lookup_transform('odom', 'base_footprint', Time()).header.frame_id == 'odom'
    transform = buffer.lookup_transform('map', 'base_footprint', Time()).transform
    assert (transform.translation.x, transform.translation.y) == (2.3, 3.0)
    assert abs(transform.rotation.z - math.sin(math.pi / 4)) < 1e-9
