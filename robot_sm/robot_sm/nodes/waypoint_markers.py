"""
RViz markers for the waypoint list: a flag and a label per waypoint.

Each waypoint gets a pole, a pennant pointing along its heading and a label ``"<index>"`` or
``"<index>: <routine>"``, coloured blue (pending), green (visited) or red (unreachable). The
waypoint the robot is driving to is drawn taller, with a yellow ring around its foot.
"""

from typing import List, Optional

from geometry_msgs.msg import Point, Pose
from robot_sm.contract import WAYPOINT_COLOURS, waypoint_status
from robot_sm_msgs.msg import Waypoint, WaypointArray
from std_msgs.msg import ColorRGBA
from visualization_msgs.msg import Marker, MarkerArray

#: The marker colour of each waypoint status.
COLOURS = {status: ColorRGBA(r=r, g=g, b=b, a=a)
           for status, (r, g, b, a) in WAYPOINT_COLOURS.items()}
CURRENT = ColorRGBA(r=1.0, g=0.85, b=0.0, a=1.0)
WHITE = ColorRGBA(r=1.0, g=1.0, b=1.0, a=1.0)
NAMESPACES = ('waypoint_poles', 'waypoint_flags', 'waypoint_labels', 'waypoint_goal')


def colour_of(visited: bool, unreachable: bool) -> ColorRGBA:
    """Return the colour of a waypoint: red if unreachable, green if visited, else blue."""
    return COLOURS[waypoint_status(visited, unreachable)]


def label_of(index: int, routine: str) -> str:
    """Return a waypoint's label: its index, and its routine when it has one."""
    return f'{index}: {routine}' if routine else str(index)


def _at(x: float, y: float, z: float) -> Pose:
    return Pose(position=Point(x=x, y=y, z=z))


def waypoint_visuals(waypoint: Waypoint, index: int, current: bool) -> List[Marker]:
    """
    Return a waypoint's pole, flag, label (and the ring of the current goal) in its own frame.

    Poses are relative to the waypoint's pose (the flag points along its x axis, its heading);
    ids and namespaces are set as in :func:`waypoint_markers`, headers are left empty.
    """
    colour = colour_of(waypoint.visited, waypoint.unreachable)
    height = 0.8 if current else 0.5
    pole = Marker(ns=NAMESPACES[0], id=waypoint.id, type=Marker.CYLINDER,
                  pose=_at(0.0, 0.0, height / 2.0), color=colour)
    pole.scale.x = pole.scale.y = 0.03
    pole.scale.z = height
    flag = Marker(ns=NAMESPACES[1], id=waypoint.id, type=Marker.ARROW, color=colour,
                  pose=_at(0.0, 0.0, height - 0.08))
    flag.scale.x, flag.scale.y, flag.scale.z = 0.25, 0.12, 0.12
    label = Marker(ns=NAMESPACES[2], id=waypoint.id, type=Marker.TEXT_VIEW_FACING,
                   pose=_at(0.0, 0.0, height + 0.15), color=WHITE,
                   text=label_of(index, waypoint.routine))
    label.scale.z = 0.18
    visuals = [pole, flag, label]
    if current:
        ring = Marker(ns=NAMESPACES[3], id=waypoint.id, type=Marker.CYLINDER,
                      pose=_at(0.0, 0.0, 0.01), color=CURRENT)
        ring.scale.x = ring.scale.y = 0.4
        ring.scale.z = 0.02
        visuals.append(ring)
    for marker in visuals:
        marker.pose.orientation.w = 1.0
    return visuals


def waypoint_markers(array: WaypointArray, current_id: Optional[int] = None) -> MarkerArray:
    """Return the markers for ``array``, replacing all earlier ones (a DELETEALL comes first)."""
    header = array.header
    markers = [Marker(header=header, action=Marker.DELETEALL)]
    for index, waypoint in enumerate(array.waypoints):
        position = waypoint.pose.position
        for marker in waypoint_visuals(waypoint, index, waypoint.id == current_id):
            marker.header = header
            marker.pose.position.x, marker.pose.position.y = position.x, position.y
            if marker.ns == NAMESPACES[1]:  # the flag points along the waypoint's heading
                marker.pose.orientation = waypoint.pose.orientation
            markers.append(marker)
    return MarkerArray(markers=markers)
