"""
The service provider: the suite's data store of waypoints, goals and modes, and the robot pose.

A thin ROS layer over :class:`robot_sm.waypoints.DataStore`: every service request is validated
and carried out by the store (or refused with ``success=false``, a message naming the field, and
nothing changed); state topics are latched (transient_local) and published only when they change.
The waypoint list is saved to ``waypoints_file`` after every change and loaded at start.

The services are grouped by what they serve: the waypoint list
(:mod:`~robot_sm.nodes.waypoint_services`), goals and exploration
(:mod:`~robot_sm.nodes.goal_services`), the reverse mode with its handshake with the
navigation (:mod:`~robot_sm.nodes.reverse_mode`), and the commands the gateway forwards
(:mod:`~robot_sm.nodes.store_commands`); the robot pose comes from tf2 or a topic
(:mod:`~robot_sm.nodes.robot_pose_source`).
"""

import os
import sys
import threading
from types import SimpleNamespace
from typing import Any, Callable, Dict, List, Optional, Tuple

from geometry_msgs.msg import PointStamped, PoseArray
from rclpy.callback_groups import MutuallyExclusiveCallbackGroup
from rclpy.node import Node
from rclpy.qos import DurabilityPolicy, HistoryPolicy, QoSProfile, ReliabilityPolicy
from robot_sm.contract import STORE_COMMAND
from robot_sm.nodes.control_view import ControlView
from robot_sm.nodes.goal_services import GoalServices
from robot_sm.nodes.node_parameters import declare_parameters, load_kept_file
from robot_sm.nodes.reverse_mode import ReverseModeService
from robot_sm.nodes.robot_pose_source import (
    PoseLookup,
    PoseUnavailable,
    tf_pose_lookup,
    topic_pose_lookup,
)
from robot_sm.nodes.runner import run_node
from robot_sm.nodes.store_commands import StoreCommands
from robot_sm.nodes.waypoint_interactive_markers import Edit, InteractiveWaypoints
from robot_sm.nodes.waypoint_markers import waypoint_markers
from robot_sm.nodes.waypoint_services import WaypointServices
from robot_sm.parameters import config_from, duration, not_empty, Param
from robot_sm.qos import EVENTS, SERVICES, STATE
from robot_sm.storage import default_file
from robot_sm.waypoint_messages import checked_pose_of, pose_message, waypoint_array
from robot_sm.waypoints import (
    DataStore,
    LoadResult,
    NavigationMode,
    RequestError,
    STORE_PARAMETERS,
    StoreError,
    StoreSettings,
    WaypointFile,
    WaypointList,
)
from robot_sm_msgs.msg import WaypointArray
from robot_sm_msgs.srv import Command, GetRobotPose
from std_msgs.msg import Bool
from std_srvs.srv import SetBool, Trigger
from visualization_msgs.msg import MarkerArray

#: Exploration goals: reliable (matches reliable publishers, latched or not), newest only.
EXPLORATION_GOALS = QoSProfile(
    history=HistoryPolicy.KEEP_LAST, depth=1, reliability=ReliabilityPolicy.RELIABLE,
    durability=DurabilityPolicy.VOLATILE)
#: The services operators use: while an operator holds control, raw ROS requests are refused.
OPERATOR_SERVICES = frozenset({
    'add_waypoint', 'move_waypoint', 'remove_waypoint', 'set_waypoint_routine', 'reset_waypoints',
    'set_waypoint_following_mode', 'set_exploration_mode', 'reset_failed_goals'})
#: What the state topics show: the list, exploration interrupt, reverse, goal obsolete, goal id.
StoreState = Tuple[WaypointList, bool, bool, bool, Optional[int]]


def parameters(namespace: str = '/') -> List[Param]:
    """Return the node's parameter specifications; the waypoints file's default follows them."""
    return [
        Param('map_frame', 'map', 'Frame of waypoint, goal and robot poses.', check=not_empty),
        Param('robot_frame', 'base_footprint',
              'Frame whose pose in map_frame get_robot_pose returns (pose_source tf).',
              check=not_empty),
        Param('pose_source', 'tf', 'Where get_robot_pose takes the pose from: tf '
              '(map_frame -> robot_frame, needs tf2_ros) or topic (pose_topic).',
              choices=('tf', 'topic')),
        Param('pose_topic', 'odom', 'Topic with the robot pose in map_frame (pose_source topic).',
              check=not_empty),
        Param('pose_topic_type', 'odometry', 'Message type on pose_topic.',
              choices=('odometry', 'pose_stamped')),
        Param('waypoints_file', default_file(namespace, 'waypoints.yaml'), 'YAML file the '
              'waypoint list is saved to on every change and loaded from at start; empty '
              'disables saving.'),
        Param('add_waypoints_from_clicked_point', True,
              'Append a waypoint for every point published on clicked_point (RViz).'),
        *STORE_PARAMETERS,
        Param('navigation_reverse_service', '', 'SetBool service that must accept a reverse '
              'mode change before it is made; empty: changes are accepted at once.'),
        duration('navigation_reverse_timeout', 2.0, 'Time to wait for '
                 'navigation_reverse_service before refusing the change.', 0.01, 60.0),
    ]


class ServiceProvider(WaypointServices, GoalServices, ReverseModeService, StoreCommands, Node):
    """Hold waypoints, goals, failed goals and modes; answer the robot pose."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__('service_provider', **kwargs)
        config = declare_parameters(self, parameters(self.get_namespace()))
        self._map_frame: str = config['map_frame']
        self._lock = threading.Lock()

        file, loaded = self._load(config['waypoints_file'])
        self._store = DataStore(loaded.waypoints, config_from(StoreSettings, config),
                                save=file.save if file is not None else None)
        for waypoint_id, routine in self._store.unknown_routines():
            self.get_logger().warning(
                f"waypoint id {waypoint_id} names routine '{routine}', which is not in "
                'waypoint_routines')
        self._changed = self.get_clock().now().to_msg()
        self._array_cache: Tuple[Optional[WaypointList], WaypointArray] = (None, WaypointArray())
        self._create_publishers()
        #: Who holds control: raw ROS edits are refused meanwhile (see control_view).
        self.control = ControlView(self)
        self._following = self.create_client(SetBool, 'robot_sm/start_stop_waypoint_following',
                                             qos_profile=SERVICES)
        self._interactive = InteractiveWaypoints(self, self._store.routines, self._edit,
                                                 self._start_following)
        group = MutuallyExclusiveCallbackGroup()
        self._create_services(group)
        self._start_reverse_mode_service(config['navigation_reverse_service'],
                                         config['navigation_reverse_timeout'])
        # The gateway's forwards: with the reverse change's handshake, which they may await.
        self.create_service(Command, STORE_COMMAND, self._on_command, qos_profile=SERVICES,
                            callback_group=self._reverse_group)
        self.create_subscription(PoseArray, 'robot_sm/exploration_goals',
                                 self._on_exploration_goals, EXPLORATION_GOALS,
                                 callback_group=group)
        if config['add_waypoints_from_clicked_point']:
            self.create_subscription(PointStamped, 'clicked_point', self._on_clicked_point,
                                     EVENTS, callback_group=group)
        self._pose_lookup = self._pose_source(config, group)

        self._publish_changes(None)
        self.get_logger().info(
            f'{len(self._store.waypoints)} waypoints; '
            + (f'saving to {file.path}' if file is not None else 'not saving (waypoints_file '
               'is empty)'))

    # -- start-up ---------------------------------------------------------------------------

    def _create_publishers(self) -> None:
        self._waypoints_pub = self.create_publisher(WaypointArray, 'robot_sm/waypoints', STATE)
        self._exploration_pub = self.create_publisher(Bool, 'robot_sm/exploration_mode', STATE)
        self._reverse_pub = self.create_publisher(Bool, 'robot_sm/reverse_mode', STATE)
        self._obsolete_pub = self.create_publisher(Bool, 'robot_sm/goal_obsolete', STATE)
        self._markers_pub = self.create_publisher(MarkerArray, 'robot_sm/waypoint_markers', STATE)

    def _create_services(self, group: MutuallyExclusiveCallbackGroup) -> None:
        """Serve everything but the reverse mode change in ``group``, one request at a time."""
        services = [*self.waypoint_services(), *self.goal_services(),
                    (GetRobotPose, 'get_robot_pose', self._get_robot_pose),
                    (Trigger, 'get_reverse_mode', self._get_reverse_mode)]
        for srv_type, name, callback in services:
            if name in OPERATOR_SERVICES:
                callback = self._unless_held(callback)
            self.create_service(srv_type, f'robot_sm/{name}', callback, qos_profile=SERVICES,
                                callback_group=group)

    def _unless_held(self, callback: Callable[[Any, Any], Any]) -> Callable[[Any, Any], Any]:
        """Return ``callback`` refusing while an operator holds control (raw ROS requests)."""
        def serve(request: Any, response: Any) -> Any:
            refusal = self.control.raw_refusal()
            if refusal:
                response.success, response.message = False, refusal
                return response
            return callback(request, response)
        return serve

    def _load(self, path: str) -> Tuple[Optional[WaypointFile], LoadResult]:
        if not path:
            return None, LoadResult(WaypointList())
        file = WaypointFile(os.path.expanduser(path))
        loaded = load_kept_file(file, 'waypoints_file', 'disable saving')
        if loaded.problem:
            self.get_logger().error(
                f'waypoints file {file.path} {loaded.problem}; moved it to {loaded.moved_to} '
                'and started with an empty waypoint list')
        return file, loaded

    def _pose_source(self, config: Dict[str, Any],
                     group: MutuallyExclusiveCallbackGroup) -> PoseLookup:
        if config['pose_source'] == 'topic':
            return topic_pose_lookup(self, config['pose_topic'], config['pose_topic_type'],
                                     self._map_frame, group)
        return tf_pose_lookup(self, self._map_frame, config['robot_frame'])

    # -- publishing -------------------------------------------------------------------------

    def _state(self) -> StoreState:
        store = self._store
        goal = store.navigation_goal
        goal_id = goal.waypoint_id if goal.mode == NavigationMode.WAYPOINT_FOLLOWING else None
        return store.waypoints, store.exploration_interrupt, store.reverse_mode, \
            store.goal_obsolete, goal_id

    def _publish_changes(self, before: Optional[StoreState]) -> None:
        """Publish each state topic whose value differs from ``before`` (all if None)."""
        waypoints, exploration, reverse, obsolete, goal_id = self._state()
        if before is None or waypoints is not before[0]:
            if before is not None:
                self._changed = self.get_clock().now().to_msg()
            self._waypoints_pub.publish(self._waypoint_array())
        if before is None or waypoints is not before[0] or goal_id != before[4]:
            self._markers_pub.publish(waypoint_markers(self._waypoint_array(), goal_id))
            self._interactive.show(self._waypoint_array(), goal_id)
        for index, (publisher, value) in enumerate(
                ((self._exploration_pub, exploration), (self._reverse_pub, reverse),
                 (self._obsolete_pub, obsolete)), start=1):
            if before is None or value != before[index]:
                publisher.publish(Bool(data=value))

    def _waypoint_array(self) -> WaypointArray:
        """Return the list as a message, built once per change (messages are slow to build)."""
        waypoints = self._store.waypoints
        if self._array_cache[0] is waypoints:
            return self._array_cache[1]
        array = waypoint_array(waypoints, self._map_frame, self._changed)
        self._array_cache = (waypoints, array)
        return array

    def _serve(self, response: Any, action: Callable[[], str]) -> Any:
        """Run ``action`` on the store; fill success and message; publish what changed."""
        with self._lock:
            before = self._state()
            try:
                response.message = action()
                response.success = True
            except StoreError as error:
                response.success = False
                response.message = str(error)
            except Exception as error:  # noqa: B902 - a service must answer, never crash
                self.get_logger().error(f'unexpected error: {error!r}')
                response.success = False
                response.message = f'internal error, nothing changed: {error!r}'
            self._publish_changes(before)
        return response

    # -- RViz's interactive markers ----------------------------------------------------------

    def _edit(self, description: str, edit: Edit) -> Tuple[bool, str]:
        """Run an edit from RViz on the store like a service request; log what it did."""
        refusal = self.control.raw_refusal()
        if refusal:
            self.get_logger().warning(f'RViz: {description} refused: {refusal}')
            return False, refusal
        response = SimpleNamespace(success=False, message='')
        self._serve(response, lambda: edit(self._store))
        if response.success:
            self.get_logger().info(f'{description}: {response.message}')
        return response.success, response.message

    def _start_following(self) -> None:
        """Ask the state interface to start waypoint following; log its answer."""
        if not self._following.service_is_ready():
            self.get_logger().warning('RViz: cannot start following: '
                                      f'{self._following.srv_name} is not available')
            return
        future = self._following.call_async(SetBool.Request(data=True))
        future.add_done_callback(lambda done: self.get_logger().info(
            f'RViz: start following: {done.result().message}' if done.result() is not None
            else f'RViz: start following failed: {done.exception()}'))

    # -- robot pose -------------------------------------------------------------------------

    def _get_robot_pose(self, _: GetRobotPose.Request,
                        response: GetRobotPose.Response) -> GetRobotPose.Response:
        try:
            pose = checked_pose_of(self._pose_lookup(), 'pose')
        except (PoseUnavailable, RequestError) as error:
            response.success = False
            response.message = str(error)
        except Exception as error:  # noqa: B902 - a service must answer, never crash
            response.success = False
            response.message = f'robot pose lookup failed: {error!r}'
        else:
            response.success = True
            response.pose = pose_message(pose)
            response.message = f'Robot pose in {self._map_frame}'
        return response


def main(args: Optional[List[str]] = None) -> None:
    """Run the service provider until shutdown."""
    sys.exit(run_node(ServiceProvider, args))


if __name__ == '__main__':
    main()
