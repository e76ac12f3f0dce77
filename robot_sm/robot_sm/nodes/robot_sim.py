"""
robot_sim: a kinematic differential-drive robot (and arm) in a 2-D world, for demos and tests.

Integrates ``wheel_command`` (or ``cmd_vel``) into a pose on the world map, stops at walls,
publishes ``odom``, ``map`` (the whole world, or what a simulated range sensor has revealed) and
``joint_states``, and optionally drives ``/clock`` so the rest of the suite runs on simulated
time.

Frames follow REP-105: odometry is in ``odom_frame``; the simulation localises perfectly, so
``map_frame`` -> ``odom_frame`` is the identity, broadcast on ``/tf_static`` with
``odom_frame`` -> ``base_frame`` on ``/tf`` (when tf2_ros is installed), and the pose in
``map_frame`` is published on ``base_pose_ground_truth`` for nodes that take the robot pose from a
topic. A world may name its start pose (``start_pose`` in its YAML): it is the default of
``start_x``, ``start_y`` and ``start_yaw``. With ``arm_joint_names`` it also simulates a URDF arm
(:mod:`robot_sm.sim.arm`) that follows ``joint_command``, and broadcasts the arm's TF
(:mod:`robot_sm.nodes.arm_tf`).

With ``robots`` (a list of names) it simulates a fleet instead: one robot per name, under
that namespace, starting at the world's ``start_poses``, all stepped as one batch
(:mod:`robot_sm.nodes.simulated_fleet`).
"""

import dataclasses
import pathlib
import re
import sys
from typing import Any, Dict, List, Optional

from builtin_interfaces.msg import Time
from geometry_msgs.msg import Twist
from nav_msgs.msg import OccupancyGrid as OccupancyGridMsg, Odometry
import numpy as np
from rclpy.node import Node
from rclpy.qos import QoSProfile
from robot_sm import qos
from robot_sm.grid import load_map, load_start_pose, load_start_poses, MapFileError, OccupancyGrid
from robot_sm.nodes.arm_tf import ArmTfBroadcaster
from robot_sm.nodes.node_parameters import declare_parameters
from robot_sm.nodes.runner import run_node
from robot_sm.nodes.simulated_fleet import SimulatedFleet
from robot_sm.nodes.tf_broadcast import planar_odometry, planar_transform, TfBroadcaster
from robot_sm.parameters import config_from, ConfigurationError, duration, Param, rate
from robot_sm.planar import Pose2D
from robot_sm.resources import share_directory, world_file
from robot_sm.sim import (
    ArmModel,
    BASE_PARAMETERS,
    BaseSettings,
    DiffDriveBase,
    FleetBases,
    RangeSensor,
    SENSOR_PARAMETERS,
    SensorSettings,
    ServoJoints,
)
from rosgraph_msgs.msg import Clock
from sensor_msgs.msg import JointState


def _fleet_names_problem(names: List[str]) -> Optional[str]:
    """Return why ``names`` cannot name a fleet's robots, or None."""
    for name in names:
        if not re.fullmatch(r'[A-Za-z][A-Za-z0-9_]*', name):
            return f'{name!r} is not a namespace name (a letter, then letters, digits or _)'
    if len(set(names)) != len(names):
        return 'names a robot twice'
    return None


PARAMETERS = [
    Param('world', 'office', 'World map: a shipped world name (office, maze) or a map YAML path'),
    Param('start_x', 1.0, "Start position x in the map frame (m); default: the world's "
          'start_pose'),
    Param('start_y', 1.0, "Start position y in the map frame (m); default: the world's "
          'start_pose'),
    Param('start_yaw', 0.0, "Start heading (rad); default: the world's start_pose"),
    *BASE_PARAMETERS,
    Param('wheel_joint_names', ['left_wheel_joint', 'right_wheel_joint'],
          'Names of the left and right wheel joints in wheel_command and joint_states',
          kind='str_list', check=lambda v: None if len(v) == 2 else 'must name two joints'),
    Param('command_input', 'wheel_command', 'Velocity input: wheel_command (JointState '
          'velocities of the wheel joints) or cmd_vel (Twist)',
          choices=('wheel_command', 'cmd_vel')),
    rate('update_frequency', 50.0, 'Simulation steps per second of wall time', 1.0, 1000.0),
    Param('map_frame', 'map', 'Frame of the world map and of base_pose_ground_truth'),
    Param('odom_frame', 'odom', 'Frame of the odometry (map_frame -> odom_frame is the identity)'),
    Param('base_frame', 'base_footprint', 'Child frame of the odometry'),
    Param('reveal_map', False, 'Publish only what the simulated range sensor has seen'),
    *SENSOR_PARAMETERS,
    rate('sensor_frequency', 5.0, 'Sensor updates and map publications per second', 0.1,
         100.0),
    Param('arm_joint_names', [], 'Arm joints that follow joint_command, joints of the arm URDF '
          '(empty: no arm)', kind='str_list'),
    Param('arm_urdf_path', '', 'URDF file of the arm (empty: the bundled config/so101_arm.urdf)'),
    duration('arm_time_constant', 0.1, 'Time constant of the arm joints tracking their commands '
             'below their URDF speed limits', 0.001, 60.0),
    Param('publish_clock', False, 'Publish /clock so that nodes with use_sim_time follow the '
          'simulation'),
    Param('time_scale', 1.0, 'Simulated seconds per wall second when publish_clock is true',
          minimum=0.01, maximum=50.0),
    Param('robots', [], "A fleet: one robot per name, each under that namespace at the world's "
          'start_poses, all stepped as one batch (empty: one robot in the namespace of the node)',
          kind='str_list', check=_fleet_names_problem),
]
#: The start pose parameters: their defaults come from the world.
START = ('start_x', 'start_y', 'start_yaw')


def _stamp(seconds: float) -> Time:
    nanoseconds = int(round(seconds * 1e9))
    return Time(sec=nanoseconds // 1_000_000_000, nanosec=nanoseconds % 1_000_000_000)


def grid_to_msg(grid: OccupancyGrid, frame_id: str, stamp: Time) -> OccupancyGridMsg:
    """Convert a core occupancy grid to a ``nav_msgs/OccupancyGrid``."""
    msg = OccupancyGridMsg()
    msg.header.frame_id = frame_id
    msg.header.stamp = stamp
    msg.info.resolution = float(grid.resolution)
    msg.info.width = grid.width
    msg.info.height = grid.height
    msg.info.origin.position.x = grid.origin_x
    msg.info.origin.position.y = grid.origin_y
    msg.info.origin.orientation.w = 1.0
    msg.info.map_load_time = stamp
    msg.data = grid.data.ravel().tolist()
    return msg


class RobotSim(Node):
    """Simulate the robot base, its range sensor and its arm."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__('robot_sim', **kwargs)
        config = declare_parameters(self, [p for p in PARAMETERS if p.name not in START])
        if config['publish_clock'] and self.get_parameter('use_sim_time').value:
            raise ConfigurationError("parameter 'publish_clock' cannot be used with use_sim_time:"
                                     ' the simulation is the clock')
        try:
            path = world_file(config['world'])
            self.world = load_map(path)
            world_start = load_start_pose(path)
        except MapFileError as error:
            raise ConfigurationError(f"parameter 'world': {error}") from error
        self.fleet: Optional[SimulatedFleet] = None
        if config['robots']:
            self._start_fleet(config, path)
            return
        specs = [p for p in PARAMETERS if p.name in START]
        if world_start is not None:
            specs = [dataclasses.replace(p, default=v) for p, v in zip(specs, world_start)]
        config.update(declare_parameters(self, specs))
        try:
            start = Pose2D(config['start_x'], config['start_y'], config['start_yaw'])
            self.base = DiffDriveBase(self.world, start, config_from(BaseSettings, config))
        except ValueError as error:
            raise ConfigurationError(f"parameters 'start_*': {error}") from error
        self.config = config
        self.wheel_names: List[str] = config['wheel_joint_names']
        self.wheel_angles = [0.0, 0.0]
        self.tf = TfBroadcaster(self)
        self.arm_tf: Optional[ArmTfBroadcaster] = None
        self.arm = self._create_arm(config)
        self.reveal = config['reveal_map']
        self.known = self.world.blank_copy() if self.reveal else self.world
        self.sensor = RangeSensor(config_from(SensorSettings, config))
        self._start_clock(config)
        self._map_dirty = True
        self._was_colliding = False

        self._create_topics(config)
        self.tf.send_static(planar_transform(config['map_frame'], config['odom_frame'],
                                             self._now_stamp()))
        if self.arm is not None:
            self.arm_tf = ArmTfBroadcaster(self.tf, self._arm_model, config['base_frame'],
                                           self._now_stamp())
        self.create_timer(self.period, self._step)
        self.create_timer(1.0 / config['sensor_frequency'], self._sense)
        self._sense()
        self.get_logger().info(
            f"simulating world '{config['world']}' ({self.world.width}x{self.world.height} cells"
            f' at {self.world.resolution} m), start ({start.x:.2f}, {start.y:.2f})'
            f"{', revealing the map' if self.reveal else ''}")

    def _create_arm(self, config: Dict[str, Any]) -> Optional[ServoJoints]:
        """Return the simulated arm that ``arm_joint_names`` asks for, or None."""
        arm_names = [name for name in config['arm_joint_names'] if name]
        if not arm_names:
            return None
        self._arm_model = _arm_model(config['arm_urdf_path'])
        try:
            return ServoJoints(arm_names, self._arm_model.limits(arm_names),
                               config['arm_time_constant'])
        except ValueError as error:
            raise ConfigurationError(f"parameter 'arm_joint_names': {error}") from None

    def _create_topics(self, config: Dict[str, Any]) -> None:
        """Publish odometry, ground truth, the map and joint states; take the commands."""
        self.odom_publisher = self.create_publisher(Odometry, 'odom', 10)
        self.ground_truth_publisher = self.create_publisher(Odometry, 'base_pose_ground_truth', 10)
        self.map_publisher = self.create_publisher(OccupancyGridMsg, 'map', qos.STATE)
        self.joint_publisher = self.create_publisher(JointState, 'joint_states', 10)
        if config['command_input'] == 'cmd_vel':
            self.create_subscription(Twist, 'cmd_vel', self._on_twist, qos.COMMAND_IN)
        else:
            self.create_subscription(JointState, 'wheel_command', self._on_wheels, qos.COMMAND_IN)
        if self.arm is not None:
            self.create_subscription(JointState, 'joint_command', self._on_joint_command,
                                     qos.COMMAND_IN)

    def _start_fleet(self, config: Dict[str, Any], world_path: pathlib.Path) -> None:
        """Simulate one robot per name of ``robots`` at the world's start poses."""
        names: List[str] = config['robots']
        try:
            starts = load_start_poses(world_path)
        except MapFileError as error:
            raise ConfigurationError(f"parameter 'world': {error}") from error
        if len(starts) < len(names):
            raise ConfigurationError(
                f"parameter 'robots': {len(names)} robots, but world {config['world']!r} has "
                f'start poses for {len(starts)} (start_poses in its YAML)')
        try:
            bases = FleetBases(self.world, [Pose2D(*pose) for pose in starts[:len(names)]],
                               config_from(BaseSettings, config))
        except ValueError as error:
            raise ConfigurationError(f"parameter 'world': start_poses: {error}") from error
        if config['arm_joint_names']:
            self.get_logger().info('a fleet has no arms: arm_joint_names is not used')
        self.config = config
        self._start_clock(config)
        self.fleet = SimulatedFleet(self, names, bases, config, self._now_stamp)
        self.create_timer(self.period, self._step_fleet)
        self.create_timer(1.0 / config['sensor_frequency'], self._sense_fleet)
        self._sense_fleet()
        self.get_logger().info(
            f"simulating {len(names)} robots ({', '.join(names)}) in world '{config['world']}'"
            f"{', each revealing its map' if config['reveal_map'] else ''}")

    def _start_clock(self, config: Dict[str, Any]) -> None:
        """Set the step and the simulated time; with ``publish_clock``, publish /clock."""
        self.clock_publisher = (self.create_publisher(Clock, '/clock', QoSProfile(depth=10))
                                if config['publish_clock'] else None)
        self.period = 1.0 / config['update_frequency']
        self.sim_step = self.period * (config['time_scale'] if config['publish_clock'] else 1.0)
        self.sim_time = self.get_clock().now().nanoseconds * 1e-9

    def _advance_clock(self) -> None:
        """Advance the simulated time by a step and publish it, or read the node's clock."""
        if self.clock_publisher is not None:
            self.sim_time += self.sim_step
            self.clock_publisher.publish(Clock(clock=_stamp(self.sim_time)))
        else:
            self.sim_time = self.get_clock().now().nanoseconds * 1e-9

    def _step_fleet(self) -> None:
        assert self.fleet is not None
        self._advance_clock()
        self.fleet.step(self.sim_time, self.sim_step)

    def _sense_fleet(self) -> None:
        assert self.fleet is not None
        self.fleet.sense(grid_to_msg)

    def _on_wheels(self, msg: JointState) -> None:
        speeds = dict(zip(msg.name, msg.velocity))
        left, right = (speeds.get(name) for name in self.wheel_names)
        if left is None or right is None:
            return
        self.base.command_wheels(left, right, self.sim_time)

    def _on_twist(self, msg: Twist) -> None:
        self.base.command_body(msg.linear.x, msg.angular.z, self.sim_time)

    def _on_joint_command(self, msg: JointState) -> None:
        assert self.arm is not None
        self.arm.command(dict(zip(msg.name, msg.position)))

    def _now_stamp(self) -> Time:
        if self.clock_publisher is not None:
            return _stamp(self.sim_time)
        return self.get_clock().now().to_msg()

    def _step(self) -> None:
        dt = self.sim_step
        self._advance_clock()
        pose = self.base.step(self.sim_time, dt)
        if self.base.collided and not self._was_colliding:
            self.get_logger().warning(f'bumped into an obstacle at ({pose.x:.2f}, {pose.y:.2f})')
        self._was_colliding = self.base.collided
        r, half_base = self.base.wheel_radius, self.base.wheel_base / 2.0
        wheel_speeds = [(self.base.linear - self.base.angular * half_base) / r,
                        (self.base.linear + self.base.angular * half_base) / r]
        self.wheel_angles = [a + w * dt for a, w in zip(self.wheel_angles, wheel_speeds)]
        if self.arm is not None:
            self.arm.step(dt)
        stamp = self._now_stamp()
        self._publish_odometry(pose, stamp)
        names, positions = list(self.wheel_names), list(self.wheel_angles)
        if self.arm is not None:
            arm_positions = self.arm.positions.tolist()
            names += self.arm.names
            positions += arm_positions
            wheel_speeds += self.arm.velocities.tolist()
            if self.arm_tf is not None:
                self.arm_tf.publish(dict(zip(self.arm.names, arm_positions)), stamp)
        joints = JointState(name=names, position=positions, velocity=wheel_speeds)
        joints.header.stamp = stamp
        self.joint_publisher.publish(joints)

    def _publish_odometry(self, pose: Pose2D, stamp: Time) -> None:
        odom = planar_odometry(self.config['odom_frame'], self.config['base_frame'], stamp, pose,
                               self.base.linear, self.base.angular)
        self.odom_publisher.publish(odom)
        # Perfect localisation: the pose in the map frame is the odometry pose.
        odom.header.frame_id = self.config['map_frame']
        self.ground_truth_publisher.publish(odom)
        self.tf.send(planar_transform(self.config['odom_frame'], self.config['base_frame'], stamp,
                                      pose.x, pose.y, pose.yaw))

    def _sense(self) -> None:
        if self.reveal and self.sensor.reveal(self.world, self.known, self.base.pose) > 0:
            self._map_dirty = True
        if self._map_dirty:
            self._map_dirty = False
            self.map_publisher.publish(grid_to_msg(self.known, self.config['map_frame'],
                                                   self._now_stamp()))

    def explored_fraction(self) -> float:
        """Return the fraction of the world's free cells the sensor has seen."""
        free = self.world.free()
        return float(np.count_nonzero(free & (self.known.data >= 0)) / max(1, free.sum()))


def _arm_model(path: str) -> ArmModel:
    """Return the arm of ``path`` (empty: the bundled SO-101); ConfigurationError if unusable."""
    path = path or str(share_directory() / 'config' / 'so101_arm.urdf')
    try:
        with open(path, encoding='utf-8') as stream:
            return ArmModel(stream.read())
    except OSError as error:
        raise ConfigurationError(f"parameter 'arm_urdf_path': cannot read {path!r}: "
                                 f'{error.strerror}') from None
    except ValueError as error:
        raise ConfigurationError(f"parameter 'arm_urdf_path': {path}: {error}") from None


def main(args: Optional[List[str]] = None) -> None:
    """Run the robot_sim node."""
    sys.exit(run_node(RobotSim, args))


if __name__ == '__main__':
    main()
