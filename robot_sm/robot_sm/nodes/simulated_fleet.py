"""
robot_sim's fleet mode: N robots in one world, each under a namespace of its own.

Robot ``name`` reads ``name/wheel_command`` (or ``name/cmd_vel``) and publishes ``name/odom``,
``name/base_pose_ground_truth``, ``name/joint_states``, ``name/map`` and ``name/scan``, so a
suite started in namespace ``name`` sees the topics a single simulated robot gives it. Its TF
frames carry its name as prefix (``name/odom`` -> ``name/base_footprint``, under the shared
``map``). All bases step as one batch (:class:`robot_sm.sim.FleetBases`); each robot's range
sensor sees the walls and the other robots, and with ``reveal_map`` each robot reveals a map of
its own.
"""

from typing import Any, Callable, Dict, List, Sequence

from builtin_interfaces.msg import Time
from geometry_msgs.msg import Twist
from nav_msgs.msg import OccupancyGrid as OccupancyGridMsg
from nav_msgs.msg import Odometry
import numpy as np
from rclpy.node import Node
from robot_sm import qos
from robot_sm.grid import OccupancyGrid
from robot_sm.nodes.tf_broadcast import planar_odometry, planar_transform, TfBroadcaster
from robot_sm.parameters import config_from
from robot_sm.sim import FleetBases, RangeSensor, SensorSettings
from sensor_msgs.msg import JointState, LaserScan


class SimulatedFleet:
    """The publishers, subscriptions and per-robot state of robot_sim's fleet mode."""

    def __init__(self, node: Node, names: Sequence[str], bases: FleetBases,
                 config: Dict[str, Any], stamp: Callable[[], Time]) -> None:
        """
        Create every robot's topics for ``bases`` in their world; robot_sim's ``config``.

        ``stamp`` gives the current time as a message.
        """
        self.node, self.names, self.bases, self.config = node, list(names), bases, config
        self.world = bases.world
        self.sensor = RangeSensor(config_from(SensorSettings, config))
        self.tf = TfBroadcaster(node)
        self._stamp = stamp
        world = self.world
        self.reveal = bool(config['reveal_map'])
        self.known: List[OccupancyGrid] = [world.blank_copy() if self.reveal else world
                                           for _ in self.names]
        self._map_dirty = [True] * len(self.names)
        self.wheel_names: List[str] = config['wheel_joint_names']
        self.wheel_angles = np.zeros((len(self.names), 2))
        self._was_colliding = np.zeros(len(self.names), dtype=np.bool_)
        self.odom_frames = [f"{name}/{config['odom_frame']}" for name in self.names]
        self.base_frames = [f"{name}/{config['base_frame']}" for name in self.names]
        self.odom_publishers = [node.create_publisher(Odometry, f'{name}/odom', 10)
                                for name in self.names]
        self.truth_publishers = [
            node.create_publisher(Odometry, f'{name}/base_pose_ground_truth', 10)
            for name in self.names]
        self.map_publishers = [node.create_publisher(OccupancyGridMsg, f'{name}/map', qos.STATE)
                               for name in self.names]
        self.joint_publishers = [node.create_publisher(JointState, f'{name}/joint_states', 10)
                                 for name in self.names]
        self.scan_publishers = [node.create_publisher(LaserScan, f'{name}/scan', qos.SENSOR)
                                for name in self.names]
        for index, name in enumerate(self.names):
            if config['command_input'] == 'cmd_vel':
                node.create_subscription(Twist, f'{name}/cmd_vel', self._twist_callback(index),
                                         qos.COMMAND_IN)
            else:
                node.create_subscription(JointState, f'{name}/wheel_command',
                                         self._wheels_callback(index), qos.COMMAND_IN)
        self.sim_time = 0.0
        self.tf.send_static(*[planar_transform(config['map_frame'], frame, stamp())
                              for frame in self.odom_frames])

    def _wheels_callback(self, index: int) -> Callable[[JointState], None]:
        def on_wheels(msg: JointState) -> None:
            speeds = dict(zip(msg.name, msg.velocity))
            left, right = (speeds.get(name) for name in self.wheel_names)
            if left is not None and right is not None:
                self.bases.command_wheels(index, left, right, self.sim_time)
        return on_wheels

    def _twist_callback(self, index: int) -> Callable[[Twist], None]:
        def on_twist(msg: Twist) -> None:
            self.bases.command_body(index, msg.linear.x, msg.angular.z, self.sim_time)
        return on_twist

    def step(self, sim_time: float, dt: float) -> None:
        """Step every base as one batch and publish every robot's odometry, joints and TF."""
        self.sim_time = sim_time
        bases = self.bases
        bases.step(sim_time, dt)
        for bumped in np.flatnonzero(bases.collided & ~self._was_colliding):
            index = int(bumped)
            self.node.get_logger().warning(
                f'{self.names[index]} bumped into an obstacle or a robot at '
                f'({bases.x[index]:.2f}, {bases.y[index]:.2f})')
        self._was_colliding = bases.collided.copy()
        self.wheel_angles += bases.wheel_speeds * dt
        stamp = self._stamp()
        transforms = []
        for index in range(bases.count):
            pose = bases.pose(index)
            odom = planar_odometry(self.odom_frames[index], self.base_frames[index], stamp, pose,
                                   float(bases.linear[index]), float(bases.angular[index]))
            self.odom_publishers[index].publish(odom)
            # Perfect localisation: the pose in the map frame is the odometry pose.
            odom.header.frame_id = self.config['map_frame']
            self.truth_publishers[index].publish(odom)
            transforms.append(planar_transform(self.odom_frames[index], self.base_frames[index],
                                               stamp, pose.x, pose.y, pose.yaw))
            joints = JointState(name=list(self.wheel_names),
                                position=self.wheel_angles[index].tolist(),
                                velocity=bases.wheel_speeds[index].tolist())
            joints.header.stamp = stamp
            self.joint_publishers[index].publish(joints)
        self.tf.send(*transforms)

    def sense(self, grid_to_msg: Callable[[OccupancyGrid, str, Time], OccupancyGridMsg]) -> None:
        """Cast every robot's sensor: publish its scan, and its map when it changed."""
        stamp = self._stamp()
        radius = self.bases.radius
        start, end, increment = self.sensor.angles()
        for index in range(self.bases.count):
            pose, others = self.bases.pose(index), self.bases.others(index)
            if self.reveal and self.sensor.reveal(self.world, self.known[index], pose, others,
                                                  radius) > 0:
                self._map_dirty[index] = True
            scan = LaserScan(angle_min=start, angle_max=end, angle_increment=increment,
                             range_min=0.0, range_max=float(self.sensor.max_range))
            scan.header.stamp = stamp
            scan.header.frame_id = self.base_frames[index]
            scan.ranges = self.sensor.ranges(self.world, pose, others, radius).tolist()
            self.scan_publishers[index].publish(scan)
            if self._map_dirty[index]:
                self._map_dirty[index] = False
                self.map_publishers[index].publish(
                    grid_to_msg(self.known[index], self.config['map_frame'], stamp))
