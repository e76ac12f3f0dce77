"""
The service provider's goal services: navigation goal, failed goals, exploration goals and mode.

Each request is checked and carried out by the :class:`robot_sm.waypoints.DataStore`, or refused
with ``success=false`` and a message naming the field, nothing changed.
"""

import math
import threading
from typing import Any, Callable, List, Optional, Tuple

from geometry_msgs.msg import PoseArray
from rclpy.clock import Clock
from rclpy.impl.rcutils_logger import RcutilsLogger
from robot_sm.nodes.robot_pose_source import other_frame
from robot_sm.quoting import quoted
from robot_sm.waypoint_messages import checked_pose_of, pose_message
from robot_sm.waypoints import DataStore, Pose
from robot_sm_msgs.srv import (
    AddFailedGoal,
    GetFailedGoals,
    GetNavigationGoal,
    GoalCompleted,
    SetNavigationGoal,
)
from std_srvs.srv import SetBool, Trigger


class GoalServices:
    """The goal services of :class:`robot_sm.nodes.service_provider.ServiceProvider`."""

    _store: DataStore
    _lock: threading.Lock
    _map_frame: str
    _serve: Callable[[Any, Callable[[], str]], Any]
    _state: Callable[[], Tuple[Any, ...]]
    _publish_changes: Callable[[Optional[Tuple[Any, ...]]], None]
    get_clock: Callable[[], Clock]
    get_logger: Callable[[], RcutilsLogger]

    def goal_services(self) -> List[Tuple[Any, str, Callable[[Any, Any], Any]]]:
        """Return ``(type, name, callback)`` of every goal and exploration service."""
        return [
            (SetNavigationGoal, 'set_navigation_goal', self._set_navigation_goal),
            (GetNavigationGoal, 'get_navigation_goal', self._get_navigation_goal),
            (GoalCompleted, 'navigation_goal_completed', self._navigation_goal_completed),
            (AddFailedGoal, 'add_failed_goal', self._add_failed_goal),
            (GetFailedGoals, 'get_failed_goals', self._get_failed_goals),
            (Trigger, 'reset_failed_goals', self._reset_failed_goals),
            (SetBool, 'set_exploration_mode', self._set_exploration_mode),
            (Trigger, 'get_exploration_mode', self._get_exploration_mode),
        ]

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
        if other_frame(frame, self._map_frame):
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
