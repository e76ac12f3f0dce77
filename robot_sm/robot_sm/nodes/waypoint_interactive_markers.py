"""
Waypoints you can grab in RViz: one interactive marker per waypoint, served by interactive_markers.

The service provider serves its list on ``robot_sm/waypoint_interactive_markers`` (RViz's
InteractiveMarkers display with that namespace; ``config/robot_sm.rviz`` has it), each waypoint a
marker ``waypoint_<id>`` in the map frame, drawn like the display-only markers (pole, flag along
its heading, label "index (id N): routine", blue pending, green visited, red unreachable, the
current goal taller with a yellow ring). Dragging it in the ground plane moves it and turning its
ring sets its yaw: when the mouse is released the waypoint is moved (``move_waypoint``, the pose
checked like every other move). Right-click gives a menu: Delete, Routine (None and the
routines of ``waypoint_routines``), Move up, Move down (a remove and an insert, as in the control
panel: a new id, pending again), Start following from here (the waypoints before it are marked
visited, then ``robot_sm/start_stop_waypoint_following`` is called). A change the store refuses
changes nothing, is logged, and the marker goes back to where the list has it.

Where the ``interactive_markers`` library is not installed (it comes with every ROS install that
has RViz) only the display-only markers (``robot_sm/waypoint_markers``) are published, and the
node says so once in its log.
"""

import math
from typing import Any, Callable, Optional, Set, Tuple

from geometry_msgs.msg import Quaternion
from rclpy.node import Node
from robot_sm.nodes.waypoint_markers import NAMESPACES, waypoint_visuals
from robot_sm.waypoint_messages import checked_pose_of
from robot_sm.waypoints import DataStore, RequestError
from robot_sm_msgs.msg import Waypoint, WaypointArray
from std_msgs.msg import Header
from visualization_msgs.msg import (
    InteractiveMarker,
    InteractiveMarkerControl,
    InteractiveMarkerFeedback,
)

#: The interactive marker server's namespace (its update topic, feedback topic and service).
TOPIC_NAMESPACE = 'robot_sm/waypoint_interactive_markers'
#: What an edit does to the store; it returns the store's message.
Edit = Callable[[DataStore], str]
#: Run an edit on the store under the node's lock: (success, message).
EditRunner = Callable[[str, Edit], Tuple[bool, str]]

#: The namespace of the display-only markers' labels.
LABELS = NAMESPACES[2]
#: Controls in the ground plane: their frame's x axis along the map's z.
_VERTICAL = Quaternion(x=0.0, y=math.sqrt(0.5), z=0.0, w=math.sqrt(0.5))


def marker_name(waypoint_id: int) -> str:
    """Return the name of the interactive marker of waypoint ``waypoint_id``."""
    return f'waypoint_{waypoint_id}'


def description_of(index: int, waypoint: Waypoint) -> str:
    """Return a marker's label: index, id and routine."""
    routine = f': {waypoint.routine}' if waypoint.routine else ''
    return f'{index} (id {waypoint.id}){routine}'


def interactive_marker(frame_id: str, index: int, waypoint: Waypoint,
                       current: bool) -> InteractiveMarker:
    """Return the interactive marker of a waypoint: drag in the plane, turn for yaw, a menu."""
    marker = InteractiveMarker(header=Header(frame_id=frame_id), name=marker_name(waypoint.id),
                               description=description_of(index, waypoint), scale=0.6)
    marker.pose = waypoint.pose
    drag = InteractiveMarkerControl(name='move', orientation=_VERTICAL, always_visible=True,
                                    interaction_mode=InteractiveMarkerControl.MOVE_PLANE)
    # The label is the marker's description (RViz's "Show Descriptions").
    drag.markers = [visual for visual in waypoint_visuals(waypoint, index, current)
                    if visual.ns != LABELS]
    turn = InteractiveMarkerControl(name='yaw', orientation=_VERTICAL,
                                    interaction_mode=InteractiveMarkerControl.ROTATE_AXIS)
    marker.controls = [drag, turn]
    return marker


class InteractiveWaypoints:
    """The waypoint list as interactive markers, if ``interactive_markers`` is installed."""

    def __init__(self, node: Node, routines: Tuple[str, ...], edit: EditRunner,
                 start_following: Callable[[], None]) -> None:
        """Serve markers on ``node``; ``edit`` changes the store, ``start_following`` starts."""
        self._node = node
        self._edit = edit
        self._start_following = start_following
        self._shown: Optional[Tuple[WaypointArray, Optional[int]]] = None
        self._names: Set[str] = set()
        try:
            from interactive_markers import InteractiveMarkerServer, MenuHandler
        except ImportError:
            node.get_logger().info(
                'interactive_markers is not installed: the waypoint markers are display-only '
                '(robot_sm/waypoint_markers); move, delete and edit waypoints with the panel or '
                'robot-sm')
            self._server: Any = None
            return
        self._server = InteractiveMarkerServer(node, TOPIC_NAMESPACE)
        self._menu = MenuHandler()
        self._build_menu(routines)

    @property
    def available(self) -> bool:
        """Return whether interactive markers are served."""
        return self._server is not None

    def _build_menu(self, routines: Tuple[str, ...]) -> None:
        menu = self._menu
        menu.insert('Delete', callback=self._on_menu(
            'delete', lambda store, index: store.remove_waypoint(index)))
        parent = menu.insert('Routine')
        for routine in ('', *routines):
            menu.insert(routine or 'None', parent=parent,
                        callback=self._on_menu('set the routine', _routine_setter(routine)))
        menu.insert('Move up', callback=self._on_menu(
            'move up', lambda store, index: store.reorder_waypoint(index, index - 1)))
        menu.insert('Move down', callback=self._on_menu(
            'move down', lambda store, index: store.reorder_waypoint(index, index + 1)))
        menu.insert('Start following from here', callback=self._on_menu(
            'start following here', lambda store, index: store.start_at(index), start=True))

    def show(self, array: WaypointArray, current_id: Optional[int]) -> None:
        """Serve the markers of ``array`` (replacing all), ``current_id`` the current goal."""
        if self._server is None:
            return
        self._shown = (array, current_id)
        # Markers are replaced in place, not cleared: the server ignores feedback for a second
        # after it creates a marker (its guard against two clients dragging one marker).
        gone = self._names - {marker_name(waypoint.id) for waypoint in array.waypoints}
        for name in gone:
            self._server.erase(name)
        self._names -= gone
        for index, waypoint in enumerate(array.waypoints):
            marker = interactive_marker(array.header.frame_id, index, waypoint,
                                        waypoint.id == current_id)
            self._server.insert(marker, feedback_callback=self._on_feedback)
            self._menu.apply(self._server, marker.name)
            self._names.add(marker.name)
        self._server.applyChanges()

    def _on_feedback(self, feedback: InteractiveMarkerFeedback) -> None:
        """Move the waypoint when a drag ends (mouse up)."""
        if feedback.event_type != InteractiveMarkerFeedback.MOUSE_UP:
            return
        shown = self._shown
        frame = shown[0].header.frame_id if shown is not None else ''
        if feedback.header.frame_id and feedback.header.frame_id.lstrip('/') != frame:
            self._refused('move', f'the pose is in frame {feedback.header.frame_id!r}, not '
                                  f'{frame!r}')
            return

        def move(store: DataStore, index: int) -> str:
            return store.move_waypoint(index, checked_pose_of(feedback.pose, 'pose'))
        self._apply('move', feedback.marker_name, move)

    def _on_menu(self, action: str, change: Callable[[DataStore, int], str],
                 start: bool = False) -> Callable[[InteractiveMarkerFeedback], None]:
        def selected(feedback: InteractiveMarkerFeedback) -> None:
            if self._apply(action, feedback.marker_name, change) and start:
                self._start_following()
        return selected

    def _apply(self, action: str, name: str, change: Callable[[DataStore, int], str]) -> bool:
        """Run ``change`` on the waypoint of marker ``name``; put the markers back if refused."""
        def edit(store: DataStore) -> str:
            index = store.waypoints.index_of(_waypoint_id(name))
            if index is None:
                raise RequestError('marker_name', f'{name} is no longer in the list')
            return change(store, index)
        success, message = self._edit(f'RViz: {action} {name}', edit)
        if not success:
            self._refused(action, message)
        return success

    def _refused(self, action: str, why: str) -> None:
        self._node.get_logger().warning(f'RViz: {action} refused: {why}')
        if self._shown is not None:
            self.show(*self._shown)  # the marker goes back to where the list has it


def _routine_setter(routine: str) -> Callable[[DataStore, int], str]:
    """Return the change that gives a waypoint ``routine`` (empty: none)."""
    def set_routine(store: DataStore, index: int) -> str:
        return store.set_waypoint_routine(index, routine)
    return set_routine


def _waypoint_id(name: str) -> int:
    return int(name.rpartition('_')[2]) if name.rpartition('_')[2].isdigit() else -1
