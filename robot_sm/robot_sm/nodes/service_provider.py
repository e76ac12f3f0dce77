"""
The service provider: the suite's data store of waypoints, goals and modes, and the robot pose.

A thin ROS layer over :class:`robot_sm.waypoints.DataStore`: every service request is validated
and carried out by the store (or refused with ``success=false``, a message naming the field, and
nothing changed); state topics are latched (transient_local) and published only when they change.
The waypoint list is saved to ``waypoints_file`` after every change and loaded at start.

No callback blocks: the reverse-mode handshake with the navigation
(``navigation_reverse_service``) is an asynchronous service callback in a callback group of its
own that awaits the answer or a timeout, while the executor keeps serving the other services.
"""

import math
import os
import sys
import threading
import time
from typing import Any, Callable, List, Optional, Tuple

from geometry_msgs.msg import (
    Point,
    PointStamped,
    Pose as PoseMsg,
    PoseArray,
    PoseStamped,
)
from nav_msgs.msg import Odometry
from rclpy.callback_groups import MutuallyExclusiveCallbackGroup, ReentrantCallbackGroup
from rclpy.client import Client
from rclpy.clock import Clock, ClockType
from rclpy.node import Node
from rclpy.qos import DurabilityPolicy, HistoryPolicy, QoSProfile, ReliabilityPolicy
from rclpy.task import Future
from rclpy.time import Time
from robot_sm.nodes.node_parameters import declare_parameters
from robot_sm.nodes.runner import run_node
from robot_sm.nodes.waypoint_markers import waypoint_markers
from robot_sm.parameters import config_from, ConfigurationError, duration, not_empty, Param
from robot_sm.qos import EVENTS, SENSOR, SERVICES, STATE
from robot_sm.quoting import quoted
from robot_sm.storage import default_file
from robot_sm.waypoint_messages import checked_pose_of, pose_message, waypoint_array
from robot_sm.waypoints import (
    checked_pose,
    DataStore,
    LoadResult,
    NavigationMode,
    PersistenceError,
    Pose,
    RequestError,
    STORE_PARAMETERS,
    StoreError,
    StoreSettings,
    WaypointFile,
    WaypointList,
)
from robot_sm_msgs.msg import WaypointArray
from robot_sm_msgs.srv import (
    AddFailedGoal,
    AddWaypoint,
    FinishRound,
    GetFailedGoals,
    GetNavigationGoal,
    GetRobotPose,
    GetWaypointRoutines,
    GetWaypoints,
    GoalCompleted,
    MoveWaypoint,
    RemoveWaypoint,
    SetNavigationGoal,
    SetWaypointFollowingMode,
    SetWaypointRoutine,
    WaypointUnreachable,
    WaypointVisited,
)
from std_msgs.msg import Bool
from std_srvs.srv import SetBool, Trigger
from visualization_msgs.msg import MarkerArray

#: Exploration goals: reliable (matches reliable publishers, latched or not), newest only.
EXPLORATION_GOALS = QoSProfile(
    history=HistoryPolicy.KEEP_LAST, depth=1, reliability=ReliabilityPolicy.RELIABLE,
    durability=DurabilityPolicy.VOLATILE)


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


def _other_frame(frame: str, map_frame: str) -> bool:
    """Return whether a header's ``frame`` names a frame other than ``map_frame`` (empty: no)."""
    return bool(frame) and frame.lstrip('/') != map_frame.lstrip('/')


class PoseUnavailable(Exception):
    """The robot pose cannot be given; the message says why."""


class ServiceProvider(Node):
    """Hold waypoints, goals, failed goals and modes; answer the robot pose."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__('service_provider', **kwargs)
        config = declare_parameters(self, parameters(self.get_namespace()))
        self._map_frame: str = config['map_frame']
        self._robot_frame: str = config['robot_frame']
        self._reverse_timeout: float = config['navigation_reverse_timeout']
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

        self._waypoints_pub = self.create_publisher(WaypointArray, 'robot_sm/waypoints', STATE)
        self._exploration_pub = self.create_publisher(Bool, 'robot_sm/exploration_mode', STATE)
        self._reverse_pub = self.create_publisher(Bool, 'robot_sm/reverse_mode', STATE)
        self._obsolete_pub = self.create_publisher(Bool, 'robot_sm/goal_obsolete', STATE)
        self._markers_pub = self.create_publisher(MarkerArray, 'robot_sm/waypoint_markers', STATE)

        group = MutuallyExclusiveCallbackGroup()
        services: List[Tuple[Any, str, Callable[[Any, Any], Any]]] = [
            (AddWaypoint, 'add_waypoint', self._add_waypoint),
            (GetWaypoints, 'get_waypoints', self._get_waypoints),
            (MoveWaypoint, 'move_waypoint', self._move_waypoint),
            (RemoveWaypoint, 'remove_waypoint', self._remove_waypoint),
            (WaypointVisited, 'waypoint_visited', self._waypoint_visited),
            (WaypointUnreachable, 'waypoint_unreachable', self._waypoint_unreachable),
            (Trigger, 'reset_waypoints', self._reset_waypoints),
            (FinishRound, 'finish_round', self._finish_round),
            (SetWaypointFollowingMode, 'set_waypoint_following_mode', self._set_following_mode),
            (SetWaypointRoutine, 'set_waypoint_routine', self._set_waypoint_routine),
            (GetWaypointRoutines, 'get_waypoint_routines', self._get_waypoint_routines),
            (SetNavigationGoal, 'set_navigation_goal', self._set_navigation_goal),
            (GetNavigationGoal, 'get_navigation_goal', self._get_navigation_goal),
            (GoalCompleted, 'navigation_goal_completed', self._navigation_goal_completed),
            (AddFailedGoal, 'add_failed_goal', self._add_failed_goal),
            (GetFailedGoals, 'get_failed_goals', self._get_failed_goals),
            (Trigger, 'reset_failed_goals', self._reset_failed_goals),
            (GetRobotPose, 'get_robot_pose', self._get_robot_pose),
            (SetBool, 'set_exploration_mode', self._set_exploration_mode),
            (Trigger, 'get_exploration_mode', self._get_exploration_mode),
            (Trigger, 'get_reverse_mode', self._get_reverse_mode),
        ]
        for srv_type, name, callback in services:
            self.create_service(srv_type, f'robot_sm/{name}', callback, qos_profile=SERVICES,
                                callback_group=group)
        # The handshake awaits another node: a group of its own, so that the other services
        # keep answering while it waits.
        self._reverse_group = ReentrantCallbackGroup()
        self._reverse_asking = False
        self._steady_clock = Clock(clock_type=ClockType.STEADY_TIME)
        self.create_service(SetBool, 'robot_sm/set_reverse_mode', self._set_reverse_mode,
                            qos_profile=SERVICES, callback_group=self._reverse_group)
        self._reverse_client: Optional[Client] = None
        if config['navigation_reverse_service']:
            self._reverse_client = self.create_client(
                SetBool, config['navigation_reverse_service'], qos_profile=SERVICES,
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

    def _load(self, path: str) -> Tuple[Optional[WaypointFile], LoadResult]:
        if not path:
            return None, LoadResult(WaypointList())
        file = WaypointFile(os.path.expanduser(path))
        try:
            file.prepare()
            loaded = file.load(time.time())
        except PersistenceError as error:
            raise ConfigurationError(f"parameter 'waypoints_file': {error}") from error
        except OSError as error:
            raise ConfigurationError(
                f"parameter 'waypoints_file': cannot create the directory of {file.path} "
                f"({error}); set another path, or '' to disable saving") from error
        if loaded.problem:
            self.get_logger().error(
                f'waypoints file {file.path} {loaded.problem}; moved it to {loaded.moved_to} '
                'and started with an empty waypoint list')
        return file, loaded

    def _pose_source(self, config: dict, group: MutuallyExclusiveCallbackGroup
                     ) -> Callable[[], PoseMsg]:
        if config['pose_source'] == 'topic':
            return self._subscribe_pose(config['pose_topic'], config['pose_topic_type'], group)
        try:
            import tf2_ros  # a robot has it; a plain pip environment may not
        except ImportError:
            self.get_logger().warning(
                'pose_source is tf but tf2_ros is not installed: get_robot_pose will fail')

            def missing() -> PoseMsg:
                raise PoseUnavailable(
                    'tf2_ros is not installed: install it (ros-$ROS_DISTRO-tf2-ros) or set '
                    'pose_source to topic with pose_topic')
            return missing
        buffer = tf2_ros.Buffer()
        self._tf_listener = tf2_ros.TransformListener(buffer, self)

        def lookup() -> PoseMsg:
            try:
                transform = buffer.lookup_transform(self._map_frame, self._robot_frame, Time())
            except tf2_ros.TransformException as error:
                raise PoseUnavailable(
                    f'no transform {self._map_frame} -> {self._robot_frame}: {error}') from None
            t, r = transform.transform.translation, transform.transform.rotation
            return PoseMsg(position=Point(x=t.x, y=t.y, z=t.z), orientation=r)
        return lookup

    def _subscribe_pose(self, topic: str, kind: str,
                        group: MutuallyExclusiveCallbackGroup) -> Callable[[], PoseMsg]:
        latest: List[Tuple[str, PoseMsg]] = []

        def on_pose(msg: Any) -> None:
            pose = msg.pose.pose if kind == 'odometry' else msg.pose
            latest[:] = [(msg.header.frame_id, pose)]

        subscription = self.create_subscription(
            Odometry if kind == 'odometry' else PoseStamped, topic, on_pose, SENSOR,
            callback_group=group)

        def last_pose() -> PoseMsg:
            if not latest:
                raise PoseUnavailable(f'no pose received on {subscription.topic_name} yet')
            frame, pose = latest[0]
            if _other_frame(frame, self._map_frame):
                raise PoseUnavailable(
                    f'the pose on {subscription.topic_name} is in frame {quoted(frame)}, not in '
                    f"map_frame '{self._map_frame}'")
            return pose
        return last_pose

    # -- publishing -------------------------------------------------------------------------

    def _state(self) -> Tuple[WaypointList, bool, bool, bool, Optional[int]]:
        store = self._store
        goal = store.navigation_goal
        goal_id = goal.waypoint_id if goal.mode == NavigationMode.WAYPOINT_FOLLOWING else None
        return store.waypoints, store.exploration_interrupt, store.reverse_mode, \
            store.goal_obsolete, goal_id

    def _publish_changes(
            self, before: Optional[Tuple[WaypointList, bool, bool, bool, Optional[int]]]) -> None:
        """Publish each state topic whose value differs from ``before`` (all if None)."""
        waypoints, exploration, reverse, obsolete, goal_id = self._state()
        if before is None or waypoints is not before[0]:
            if before is not None:
                self._changed = self.get_clock().now().to_msg()
            self._waypoints_pub.publish(self._waypoint_array())
        if before is None or waypoints is not before[0] or goal_id != before[4]:
            self._markers_pub.publish(waypoint_markers(self._waypoint_array(), goal_id))
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

    # -- waypoints --------------------------------------------------------------------------

    def _add_waypoint(self, request: AddWaypoint.Request,
                      response: AddWaypoint.Response) -> AddWaypoint.Response:
        def add() -> str:
            pose = checked_pose_of(request.waypoint.pose, 'waypoint.pose')
            response.id, message = self._store.add_waypoint(
                pose, request.waypoint.routine, request.position)
            return message
        return self._serve(response, add)

    def _get_waypoints(self, _: GetWaypoints.Request,
                       response: GetWaypoints.Response) -> GetWaypoints.Response:
        with self._lock:
            response.waypoint_array = self._waypoint_array()
        return response

    def _move_waypoint(self, request: MoveWaypoint.Request,
                       response: MoveWaypoint.Response) -> MoveWaypoint.Response:
        return self._serve(response, lambda: self._store.move_waypoint(
            request.position, checked_pose_of(request.pose, 'pose')))

    def _remove_waypoint(self, request: RemoveWaypoint.Request,
                         response: RemoveWaypoint.Response) -> RemoveWaypoint.Response:
        return self._serve(response, lambda: self._store.remove_waypoint(request.position))

    def _waypoint_visited(self, request: WaypointVisited.Request,
                          response: WaypointVisited.Response) -> WaypointVisited.Response:
        return self._serve(response, lambda: self._store.mark_visited(request.position))

    def _waypoint_unreachable(
            self, request: WaypointUnreachable.Request,
            response: WaypointUnreachable.Response) -> WaypointUnreachable.Response:
        return self._serve(response, lambda: self._store.mark_unreachable(request.position))

    def _reset_waypoints(self, _: Trigger.Request, response: Trigger.Response) -> Any:
        return self._serve(response, self._store.reset_waypoints)

    def _finish_round(self, _: FinishRound.Request,
                      response: FinishRound.Response) -> FinishRound.Response:
        def finish() -> str:
            response.continues, message = self._store.finish_round()
            return message
        self._serve(response, finish)
        with self._lock:
            response.waypoint_array = self._waypoint_array()
        return response

    def _set_following_mode(
            self, request: SetWaypointFollowingMode.Request,
            response: SetWaypointFollowingMode.Response) -> SetWaypointFollowingMode.Response:
        return self._serve(response, lambda: self._store.set_following_mode(
            request.mode, request.reverse))

    def _set_waypoint_routine(
            self, request: SetWaypointRoutine.Request,
            response: SetWaypointRoutine.Response) -> SetWaypointRoutine.Response:
        return self._serve(response, lambda: self._store.set_waypoint_routine(
            request.position, request.routine))

    def _get_waypoint_routines(
            self, _: GetWaypointRoutines.Request,
            response: GetWaypointRoutines.Response) -> GetWaypointRoutines.Response:
        response.waypoint_routines = list(self._store.routines)
        return response

    def _on_clicked_point(self, msg: PointStamped) -> None:
        frame = msg.header.frame_id
        if _other_frame(frame, self._map_frame):
            self.get_logger().warning(
                f'clicked point ignored: it is in frame {quoted(frame)}, not in map_frame '
                f"'{self._map_frame}'")
            return
        response = AddWaypoint.Response()
        point = msg.point

        def add() -> str:
            pose = checked_pose('clicked_point.point', point.x, point.y, point.z,
                                0.0, 0.0, 0.0, 1.0)
            return self._store.add_waypoint(pose, '', -1)[1]
        self._serve(response, add)
        if response.success:
            self.get_logger().info(f'clicked point: {response.message}')
        else:
            self.get_logger().warning(f'clicked point ignored: {response.message}')

    # -- navigation goal --------------------------------------------------------------------

    def _set_navigation_goal(self, request: SetNavigationGoal.Request,
                             response: SetNavigationGoal.Response) -> SetNavigationGoal.Response:
        return self._serve(response, lambda: self._store.set_navigation_goal(
            checked_pose_of(request.goal, 'goal'), request.navigation_mode,
            request.waypoint_position, request.routine))

    def _get_navigation_goal(self, _: GetNavigationGoal.Request,
                             response: GetNavigationGoal.Response) -> GetNavigationGoal.Response:
        with self._lock:
            goal = self._store.navigation_goal
            response.goal = pose_message(goal.pose)
            response.navigation_mode = int(goal.mode)
            response.waypoint_position = self._store.navigation_goal_index()
            response.routine = goal.routine
        return response

    def _navigation_goal_completed(self, request: GoalCompleted.Request,
                                   response: GoalCompleted.Response) -> GoalCompleted.Response:
        return self._serve(response, lambda: self._store.complete_navigation_goal(
            request.status.goal_status, request.navigation_status))

    # -- failed goals -----------------------------------------------------------------------

    def _add_failed_goal(self, request: AddFailedGoal.Request,
                         response: AddFailedGoal.Response) -> AddFailedGoal.Response:
        return self._serve(response, lambda: self._store.add_failed_goal(
            checked_pose_of(request.goal, 'goal')))

    def _get_failed_goals(self, _: GetFailedGoals.Request,
                          response: GetFailedGoals.Response) -> GetFailedGoals.Response:
        with self._lock:
            response.failed_goals.header.frame_id = self._map_frame
            response.failed_goals.header.stamp = self.get_clock().now().to_msg()
            response.failed_goals.poses = [pose_message(p) for p in self._store.failed_goals]
        return response

    def _reset_failed_goals(self, _: Trigger.Request, response: Trigger.Response) -> Any:
        return self._serve(response, self._store.reset_failed_goals)

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

    # -- exploration mode and obsolete goals ------------------------------------------------

    def _set_exploration_mode(self, request: SetBool.Request,
                              response: SetBool.Response) -> SetBool.Response:
        return self._serve(response, lambda: self._store.set_exploration_mode(request.data))

    def _get_exploration_mode(self, _: Trigger.Request, response: Trigger.Response) -> Any:
        with self._lock:
            response.success = self._store.exploration_interrupt
        response.message = 'Exploration mode: ' + ('interrupt' if response.success else 'finish')
        return response

    def _on_exploration_goals(self, msg: PoseArray) -> None:
        frame = msg.header.frame_id
        if _other_frame(frame, self._map_frame):
            self.get_logger().warning(
                f'exploration goals ignored: they are in frame {quoted(frame)}, not in map_frame '
                f"'{self._map_frame}'", throttle_duration_sec=10.0)
            return
        goals = [Pose(p.position.x, p.position.y, p.position.z) for p in msg.poses
                 if all(math.isfinite(v) for v in (p.position.x, p.position.y, p.position.z))]
        with self._lock:
            before = self._state()
            self._store.update_exploration_goals(goals)
            self._publish_changes(before)

    # -- reverse driving --------------------------------------------------------------------

    def _get_reverse_mode(self, _: Trigger.Request, response: Trigger.Response) -> Any:
        with self._lock:
            response.success = self._store.reverse_mode
        response.message = 'Reverse mode active' if response.success else 'Forward mode active'
        return response

    async def _set_reverse_mode(self, request: SetBool.Request,
                                response: SetBool.Response) -> SetBool.Response:
        with self._lock:
            try:
                self._store.check_reverse_mode(request.data)
                if self._reverse_asking:
                    raise RequestError('data', 'a reverse mode change is already waiting for '
                                               'the navigation to answer')
            except RequestError as error:
                response.success = False
                response.message = str(error)
                return response
            self._reverse_asking = True
        try:
            refusal = await self._ask_navigation(request.data)
        finally:
            self._reverse_asking = False
        if refusal:
            response.success = False
            response.message = refusal + '; reverse mode unchanged'
            return response
        return self._serve(response, lambda: self._store.set_reverse_mode(request.data))

    async def _ask_navigation(self, reverse: bool) -> str:
        """Return why the navigation refused to drive ``reverse``; empty if it accepted."""
        client = self._reverse_client
        if client is None:
            return ''
        name = client.srv_name
        if not client.service_is_ready():
            return f'{name} is not available'
        # Resolved by the answer or by the timeout timer, whichever comes first; the executor
        # keeps serving everything else meanwhile.
        outcome = Future()
        request = client.call_async(SetBool.Request(data=reverse))

        def settle(result: Any) -> None:
            if not outcome.done():
                outcome.set_result(result)

        request.add_done_callback(lambda answered: settle(answered.result()))
        # A communication timeout: steady time, also under use_sim_time with a paused /clock.
        timer = self.create_timer(self._reverse_timeout, lambda: settle(None),
                                  callback_group=self._reverse_group, clock=self._steady_clock)
        try:
            answer = await outcome
        finally:
            self.destroy_timer(timer)
            client.remove_pending_request(request)
        if answer is None:
            return f'{name} did not answer within {self._reverse_timeout:g} s'
        if not answer.success:
            return f'{name} refused: {answer.message}'
        return ''


def main(args: Optional[List[str]] = None) -> None:
    """Run the service provider until shutdown."""
    sys.exit(run_node(ServiceProvider, args))


if __name__ == '__main__':
    main()
