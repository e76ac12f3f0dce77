"""
The service provider's waypoint services: the list, its edits, its progress, RViz's clicked points.

Each request is checked and carried out by the :class:`robot_sm.waypoints.DataStore`, or refused
with ``success=false`` and a message naming the field, nothing changed
(:meth:`robot_sm.nodes.service_provider.ServiceProvider._serve`).
"""

import threading
from typing import Any, Callable, List, Tuple

from geometry_msgs.msg import PointStamped
from rclpy.impl.rcutils_logger import RcutilsLogger
from robot_sm.nodes.robot_pose_source import other_frame
from robot_sm.quoting import quoted
from robot_sm.waypoint_messages import checked_pose_of
from robot_sm.waypoints import checked_pose, DataStore
from robot_sm_msgs.msg import WaypointArray
from robot_sm_msgs.srv import (
    AddWaypoint,
    FinishRound,
    GetWaypointRoutines,
    GetWaypoints,
    MoveWaypoint,
    RemoveWaypoint,
    SetWaypointFollowingMode,
    SetWaypointRoutine,
    WaypointUnreachable,
    WaypointVisited,
)
from std_srvs.srv import Trigger


class WaypointServices:
    """The waypoint services of :class:`robot_sm.nodes.service_provider.ServiceProvider`."""

    _store: DataStore
    _lock: threading.Lock
    _map_frame: str
    _serve: Callable[[Any, Callable[[], str]], Any]
    _waypoint_array: Callable[[], WaypointArray]
    get_logger: Callable[[], RcutilsLogger]
    control: Any

    def waypoint_services(self) -> List[Tuple[Any, str, Callable[[Any, Any], Any]]]:
        """Return ``(type, name, callback)`` of every waypoint service."""
        return [
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
        ]

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
        refusal = self.control.raw_refusal()
        if refusal:
            self.get_logger().warning(f'clicked point ignored: {refusal}')
            return
        frame = msg.header.frame_id
        if other_frame(frame, self._map_frame):
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
