"""
RViz markers for the waypoint list: a flag and a label per waypoint.

Each waypoint gets a pole, a pennant pointing along its heading and a label ``"<index>"`` or
``"<index>: <routine>"``, coloured blue (pending), green (visited) or red (unreachable). The
waypoint the robot is driving to is drawn taller, with a yellow ring around its foot.
"""

from typing import Optional

from geometry_msgs.msg import Point, Pose
from robot_sm_msgs.msg import WaypointArray
from std_msgs.msg import ColorRGBA
from visualization_msgs.msg import Marker, MarkerArray

PENDING = ColorRGBA(r=0.1, g=0.35, b=1.0, a=1.0)
VISITED = ColorRGBA(r=0.1, g=0.8, b=0.2, a=1.0)
UNREACHABLE = ColorRGBA(r=0.9, g=0.1, b=0.1, a=1.0)
CURRENT = ColorRGBA(r=1.0, g=0.85, b=0.0, a=1.0)
WHITE = ColorRGBA(r=1.0, g=1.0, b=1.0, a=1.0)
NAMESPACES = ('waypoint_poles', 'waypoint_flags', 'waypoint_labels', 'waypoint_goal')


def colour_of(visited: bool, unreachable: bool) -> ColorRGBA:
    """Return the colour of a waypoint: red if unreachable, green if visited, else blue."""
    return UNREACHABLE if unreachable else VISITED if visited else PENDING


def label_of(index: int, routine: str) -> str:
    """Return a waypoint's label: its index, and its routine when it has one."""
    return f'{index}: {routine}' if routine else str(index)


def _on_ground(pose: Pose, height: float) -> Pose:
    lifted = Pose()
    lifted.position.x, lifted.position.y = pose.position.x, pose.position.y
    lifted.position.z = height
    lifted.orientation.w = 1.0
    return lifted


def waypoint_markers(array: WaypointArray, current_id: Optional[int] = None) -> MarkerArray:
    """Return the markers for ``array``, replacing all earlier ones (a DELETEALL comes first)."""
    header = array.header
    markers = [Marker(header=header, action=Marker.DELETEALL)]
    for index, waypoint in enumerate(array.waypoints):
        colour = colour_of(waypoint.visited, waypoint.unreachable)
        current = waypoint.id == current_id
        height = 0.8 if current else 0.5
        pole = Marker(header=header, ns=NAMESPACES[0], id=waypoint.id, type=Marker.CYLINDER,
                      pose=_on_ground(waypoint.pose, height / 2.0), color=colour)
        pole.scale.x = pole.scale.y = 0.03
        pole.scale.z = height
        flag = Marker(header=header, ns=NAMESPACES[1], id=waypoint.id, type=Marker.ARROW,
                      color=colour)
        flag.pose = Pose(position=Point(x=waypoint.pose.position.x, y=waypoint.pose.position.y,
                                        z=height - 0.08),
                         orientation=waypoint.pose.orientation)
        flag.scale.x, flag.scale.y, flag.scale.z = 0.25, 0.12, 0.12
        label = Marker(header=header, ns=NAMESPACES[2], id=waypoint.id,
                       type=Marker.TEXT_VIEW_FACING, pose=_on_ground(waypoint.pose, height + 0.15),
                       color=WHITE, text=label_of(index, waypoint.routine))
        label.scale.z = 0.18
        markers += [pole, flag, label]
        if current:
            ring = Marker(header=header, ns=NAMESPACES[3], id=waypoint.id, type=Marker.CYLINDER,
                          pose=_on_ground(waypoint.pose, 0.01), color=CURRENT)
            ring.scale.x = ring.scale.y = 0.4
            ring.scale.z = 0.02
            markers.append(ring)
    return MarkerArray(markers=markers)
