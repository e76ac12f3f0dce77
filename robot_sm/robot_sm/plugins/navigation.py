"""
The Navigation plugin: drive to the goal the state was created with.

With ``use_nav2`` true and Nav2 installed, the goal goes to Nav2's ``NavigateToPose`` action
(with a server-connection timeout). Otherwise the built-in navigator plans on the ``map`` topic
(an inflated costmap and a shortest path, replanned as the map grows) and follows the plan with
pure pursuit on ``autonomy/cmd_vel``, taking the robot pose from ``pose_topic``. RSM's stuck
handling is kept with its bugs fixed: x, y and the wrapped yaw are compared, one unstuck attempt
(backing off, then replanning), then the goal fails.

In exploration's interrupt mode, ``robot_sm/goal_obsolete`` ends the goal with outcome
``obsolete_moved`` (the cycle leads to Mapping) if the robot moved, else ``obsolete_not_moved``
(to Calculate Goal). Only a flag published after this goal was stored counts, so
a stale flag of the previous goal never ends a fresh one. For that flag to follow the map, the
state searches the map for frontiers whenever it changes while driving to an exploration goal (at
most ``frontier_rate`` times a second, with the calculate goal plugin's search settings) and
publishes their goals on ``robot_sm/exploration_goals``, as Calculate Goal does.
"""

import importlib.util
import math
from typing import List, Optional, Tuple

from robot_sm.grid import OccupancyGrid
from robot_sm.navigation import (
    GridNavigator,
    NavigationStatus,
    NavigatorConfig,
    VelocityCommand,
)
from robot_sm.parameters import duration, Param, rate
from robot_sm.planar import Pose2D
from robot_sm.plugins.conversions import grid_from_msg, path_msg, planar, pose2d, twist
from robot_sm.plugins.exploration import FrontierGoals
from robot_sm.statemachine.calls import PendingGoal
from robot_sm.statemachine.constants import OperationMode
from robot_sm.statemachine.navigation_state import NavigationState
from robot_sm.waypoint_messages import pose_message
from robot_sm.waypoints.navigation_goal import NavigationMode

TWIST = 'geometry_msgs/msg/Twist'
NAVIGATE_TO_POSE = 'nav2_msgs/action/NavigateToPose'


class Navigation(NavigationState):
    """Drive to the goal with the built-in planner and pure pursuit (or Nav2)."""

    NAME = 'Navigation'
    #: An exploration goal that is no longer a frontier ends the drive: to Mapping if the robot
    #: moved, else to Calculate Goal.
    OUTCOMES = NavigationState.OUTCOMES + ('obsolete_moved', 'obsolete_not_moved')
    PARAMETERS = (
        Param('pose_topic', 'odom', 'nav_msgs/Odometry topic with the robot pose in the map '
              'frame (the built-in navigator).'),
        Param('max_linear_speed', 0.3, 'Top forward speed (m/s).', minimum=0.01),
        Param('max_angular_speed', 1.5, 'Top turn rate (rad/s).', minimum=0.01),
        Param('robot_radius', 0.12, 'Radius of the robot for planning (m).', minimum=0.0),
        Param('inflation_radius', 0.35, 'Distance from obstacles with a cost (m).', minimum=0.0),
        Param('xy_tolerance', 0.1, 'Distance at which the goal is reached (m).', minimum=0.01),
        Param('yaw_tolerance', 0.2, 'Heading error at which the goal is reached (rad).',
              minimum=0.01),
        Param('pose_tolerance', 0.1, 'Movement (m in x or y, rad in yaw) that counts as '
              'progress for stuck detection.', minimum=0.0),
        duration('idle_timer_duration', 10.0, 'Time without progress before the robot counts '
                 'as stuck.', 0.1, 600.0),
        duration('unstuck_timer_duration', 2.0, 'Time of backing off in the one unstuck '
                 'attempt.', 0.0, 60.0),
        Param('exploration_goal_radius', 0.35, 'An exploration goal in an obstacle is moved to '
              'the nearest free point within this distance (m).', minimum=0.0),
        duration('startup_timeout', 5.0, 'Time to wait for the first map and pose before the '
                 'goal fails.', 0.1, 600.0),
        Param('use_nav2', False, "Use Nav2's NavigateToPose action instead of the built-in "
              'navigator (needs nav2_msgs).'),
        Param('nav2_action', 'navigate_to_pose', 'Name of the Nav2 action.'),
        duration('nav2_server_timeout', 10.0, 'Time to wait for the Nav2 action server before '
                 'the goal fails.', 0.1, 600.0),
        rate('frontier_rate', 2.0, 'While driving to an exploration goal, search the map for '
             'frontiers when it changes, at most this often, and publish their goals on '
             "robot_sm/exploration_goals (the calculate goal plugin's search settings); 0: only "
             'Calculate Goal publishes them.', 0.1, 50.0, off=True),
    )

    def start(self) -> None:
        """Subscribe to what driving needs and set up the navigator."""
        assert self.goal is not None
        context = self.context
        exploring = self.activity is NavigationMode.EXPLORATION
        self._started = context.now()
        self._stored_at: Optional[float] = None
        self._start_pose: Optional[Pose2D] = None
        self._map_msg = None
        self._grid: Optional[OccupancyGrid] = None
        self._published_path: List[Tuple[float, float]] = []
        self._reverse = context.subscribe('robot_sm/reverse_mode', 'std_msgs/msg/Bool',
                                          qos='state')
        self._mode = context.subscribe('robot_sm/operation_mode',
                                       'robot_sm_msgs/msg/OperationMode', qos='state')
        self._obsolete_flag = context.subscribe('robot_sm/goal_obsolete', 'std_msgs/msg/Bool',
                                                qos='state') if exploring else None
        self._nav2_goal: Optional[PendingGoal] = None
        self._use_nav2 = bool(context.parameter('use_nav2'))
        if self._use_nav2 and importlib.util.find_spec('nav2_msgs') is None:
            context.logger.error('use_nav2 is set but nav2_msgs is not installed: using the '
                                 'built-in navigator')
            self._use_nav2 = False
        self._navigator = GridNavigator(self._navigator_config(exploring))
        self._navigator.set_goal(planar(self.goal.pose))
        self._cmd = context.publisher('autonomy/cmd_vel', TWIST, 'command')
        self._plan = context.publisher('robot_sm/plan', 'nav_msgs/msg/Path', 'state')
        self._map = context.subscribe('map', 'nav_msgs/msg/OccupancyGrid', qos='state')
        self._pose = context.subscribe(context.parameter('pose_topic'),
                                       'nav_msgs/msg/Odometry', qos='sensor')
        self._frontiers: Optional[FrontierGoals] = None
        self._frontiers_map = None
        self._frontiers_at = -math.inf
        frontier_rate = context.parameter('frontier_rate')
        self._frontier_period = 1.0 / frontier_rate if frontier_rate > 0.0 else math.inf
        if exploring and frontier_rate > 0.0:
            self._frontiers = self._frontier_goals()

    def _navigator_config(self, exploring: bool) -> NavigatorConfig:
        """Return the built-in navigator's settings from the parameters."""
        parameter = self.context.parameter
        return NavigatorConfig(
            robot_radius=parameter('robot_radius'),
            inflation_radius=max(parameter('inflation_radius'), parameter('robot_radius')),
            max_linear=parameter('max_linear_speed'),
            max_angular=parameter('max_angular_speed'),
            xy_tolerance=parameter('xy_tolerance'),
            yaw_tolerance=parameter('yaw_tolerance'),
            use_goal_yaw=not exploring,
            pose_tolerance=parameter('pose_tolerance'),
            idle_timeout=max(parameter('idle_timer_duration'),
                             parameter('unstuck_timer_duration') + 1.0),
            unstuck_duration=parameter('unstuck_timer_duration'),
            goal_relax_radius=parameter('exploration_goal_radius') if exploring else 0.0,
        )

    def _frontier_goals(self) -> Optional[FrontierGoals]:
        """Return the frontier search of the calculate goal plugin, or None if it has none."""
        plugin = self.context.parameter('calculate_goal_plugin')
        try:
            return FrontierGoals(self.context, plugin)
        except Exception as error:  # noqa: B902 - whatever the missing parameters raise
            self.context.logger.info(
                'frontier goals are not updated while driving: the calculate goal plugin '
                f"'{plugin}' has no frontier search settings ({error})")
            return None

    def _update_frontiers(self, now: float) -> None:
        """Publish the goals of a changed map's frontiers, at most ``frontier_rate`` per second."""
        if self._frontiers is None or self._grid is None or self._map_msg is self._frontiers_map:
            return
        if now - self._frontiers_at < self._frontier_period:
            return
        odometry = self._pose.latest
        # The service provider compares the goals with the stored goal: wait until it is this one.
        if not self._goal_stored() or odometry is None:
            return
        self._frontiers_map = self._map_msg
        self._frontiers_at = now
        self._frontiers.publish(self._grid, pose2d(odometry.pose.pose))

    def _goal_stored(self) -> bool:
        """Tell whether the service provider holds this goal now."""
        return self.stored is not None and self.stored.done() and self.stored.succeeded

    def _goal_obsolete(self) -> bool:
        """Tell whether the service provider says this exploration goal is no longer a frontier."""
        flag = self._obsolete_flag
        if flag is None or flag.latest is None or not flag.latest.data:
            return False
        if not self._goal_stored() or self._stored_at is None:
            return False
        # Only a flag that came after the goal was stored belongs to this goal.
        return flag.received_at is not None and flag.received_at >= self._stored_at

    def _moved(self) -> bool:
        """Tell whether the robot moved more than ``pose_tolerance`` since the drive began."""
        odometry = self._pose.latest
        return (self._start_pose is not None and odometry is not None
                and pose2d(odometry.pose.pose).distance_to(self._start_pose)
                > self.context.parameter('pose_tolerance'))

    def update(self) -> None:
        """Drive one tick; end with succeed() or fail() when the navigator says so."""
        context = self.context
        now = context.now()
        if self._stored_at is None and self.stored is not None and self.stored.done():
            self._stored_at = now
        # Checked first: a tick that replans on a new map must not delay the abort.
        if self._goal_obsolete():
            self.end_with('obsolete_moved' if self._moved() else 'obsolete_not_moved',
                          'the exploration goal is no longer a frontier')
            return
        if self._map.latest is not None and self._map.latest is not self._map_msg:
            self._map_msg = self._map.latest
            self._grid = grid_from_msg(self._map_msg)
            self._navigator.set_map(self._grid)
        self._update_frontiers(now)
        if self._use_nav2:
            self._update_nav2(now)
            return
        odometry = self._pose.latest
        if odometry is None or self._map_msg is None:
            if now - self._started > context.parameter('startup_timeout'):
                missing = 'robot pose' if odometry is None else 'map'
                topic = context.parameter('pose_topic') if odometry is None else 'map'
                self.fail(f'no {missing} on {topic} within '
                          f"{context.parameter('startup_timeout'):g} s")
            return
        pose = pose2d(odometry.pose.pose)
        if self._start_pose is None:
            self._start_pose = pose
        if self._reverse.latest is not None:
            self._navigator.set_reverse(bool(self._reverse.latest.data))
        mode = self._mode.latest
        self._navigator.set_allowed_to_move(
            mode is not None and mode.mode == OperationMode.AUTONOMOUS
            and not mode.emergency_stop)
        step = self._navigator.step(pose, now)
        self.distance_left = self._navigator.distance_remaining(pose)
        self._cmd.publish(twist(step.command))
        if self._navigator.path != self._published_path:
            self._published_path = list(self._navigator.path)
            self._plan.publish(path_msg(self._published_path, context.map_frame,
                                        context.ros_time()))
        if step.status == NavigationStatus.SUCCEEDED:
            self.succeed()
        elif step.status == NavigationStatus.FAILED:
            self.fail(step.message)

    def _update_nav2(self, now: float) -> None:
        """Drive with Nav2: send the goal once its server is up, then wait for the result."""
        context = self.context
        goal = self._nav2_goal
        if goal is None:
            action = context.parameter('nav2_action')
            if context.action_ready(action, NAVIGATE_TO_POSE):
                assert self.goal is not None
                self._nav2_goal = context.send_goal(action, NAVIGATE_TO_POSE, {'pose': {
                    'header': {'frame_id': context.map_frame},
                    'pose': pose_message(self.goal.pose)}})
            elif now - self._started > context.parameter('nav2_server_timeout'):
                self.fail(f"Nav2's {action} action server did not come up within "
                          f"{context.parameter('nav2_server_timeout'):g} s")
            return
        feedback = goal.feedback
        if feedback is not None:
            self.distance_left = float(getattr(feedback, 'distance_remaining', math.nan))
        if not goal.done():
            return
        if goal.succeeded:
            self.succeed()
        else:
            self.fail(f'Nav2: {goal.describe()}')

    def stop(self) -> None:
        """Stop: cancel the Nav2 goal, command zero velocity; whatever the reason for leaving."""
        if self._nav2_goal is not None:
            self._nav2_goal.cancel()
        self._cmd.publish(twist(VelocityCommand()))
