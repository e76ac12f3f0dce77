"""
The suite's messages as the page is sent them: small JSON-able dictionaries.

Each function takes a ROS message (read by its fields only, so plain objects do as well) and
returns what the page draws or shows; positions are rounded to the millimetre and long paths
thinned, so that a page gets what it can show and no more.
"""

import math
from typing import Any, Dict, List, Optional, Sequence

from robot_sm.client.status import activity_name, FOLLOWING_MODE_NAMES, last_outcome
from robot_sm.contract import Activity, MODE_NAMES, Outcome
from robot_sm.planar import yaw_from_quaternion

#: The most points of a path sent to a page (a longer one is thinned evenly, ends kept).
MAX_PATH_POINTS = 400
#: The most exploration goals sent.
MAX_GOALS = 200
#: Mode names by OperationMode value.
MODES = {int(mode): name for mode, name in MODE_NAMES.items()}
#: Following mode names by WaypointArray value.
FOLLOWING = FOLLOWING_MODE_NAMES
#: The activities as the page names them (its CSS classes and buttons): by StateInfo value.
ACTIVITIES = {int(activity): activity.name.lower() for activity in Activity}


def _mm(value: float) -> float:
    return round(float(value), 3) if math.isfinite(value) else 0.0


def yaw_of(orientation: Any) -> float:
    """Return the yaw of a quaternion message, rounded."""
    return round(yaw_from_quaternion(orientation.x, orientation.y, orientation.z,
                                     orientation.w), 4)


def state_view(msg: Any) -> Dict[str, Any]:
    """
    Return the typed state (``robot_sm/state``): its name, role, activity and the last outcome.

    ``activity`` is the page's key of the activity (``waypoint_following``, ``exploration``,
    ``simple_goal``, ``teleoperation``, ``plugin``, or '' outside activities); the buttons
    follow it, never the state's name. ``role`` is the state's role in the cycle (the cycle
    diagram's node), ``plugin`` the plugin playing it; ``paused_activity`` is a key as
    ``activity`` is.
    """
    activity = int(msg.activity)
    paused = int(msg.paused_activity)
    stamp = float(msg.stamp.sec) + float(msg.stamp.nanosec) * 1e-9
    return {'state': str(msg.name), 'role': str(msg.role), 'plugin': str(msg.plugin),
            'activity': '' if activity == Activity.NONE else ACTIVITIES.get(activity, 'plugin'),
            'activity_name': activity_name(activity, str(msg.activity_name)),
            'activity_id': int(msg.activity_id),
            'outcome': last_outcome(msg) or '',
            'outcome_code': Outcome(msg.last_outcome).name.lower()
            if msg.last_outcome in Outcome._value2member_map_ else '',
            'last_activity_id': int(msg.last_activity_id),
            'paused': bool(msg.paused), 'resumable': str(msg.resumable),
            'paused_activity': '' if paused == Activity.NONE
            else ACTIVITIES.get(paused, 'plugin'),
            'time': round(stamp, 3)}


def control_view(msg: Any) -> Dict[str, Any]:
    """
    Return who holds control (robot_sm/control): holder, since (epoch seconds), stale.

    ``taken_from`` and ``taken_at`` name whom the last take-over took control from, and when.
    """
    held = bool(msg.held)
    return {'held': held, 'holder': str(msg.holder.name) if held else '',
            'surface': str(msg.holder.surface) if held else '',
            'address': str(msg.holder.address) if held else '',
            'since': float(msg.since.sec) if held else 0.0, 'stale': bool(msg.stale),
            'stale_after': round(float(msg.stale_after), 3),
            'taken_from': str(msg.taken_from.name), 'taken_at': float(msg.taken_at.sec)}


def mode_view(msg: Any) -> Dict[str, Any]:
    """Return the mux's operation mode and e-stop."""
    return {'mode': MODES.get(int(msg.mode), str(msg.mode)),
            'emergency_stop': bool(msg.emergency_stop)}


def waypoints_view(msg: Any) -> Dict[str, Any]:
    """Return the waypoint list with each waypoint's status, and the following mode."""
    rows = []
    for position, waypoint in enumerate(msg.waypoints):
        p = waypoint.pose.position
        status = ('unreachable' if waypoint.unreachable
                  else 'visited' if waypoint.visited else 'pending')
        rows.append({'index': position, 'id': int(waypoint.id), 'x': _mm(p.x), 'y': _mm(p.y),
                     'yaw': yaw_of(waypoint.pose.orientation), 'routine': str(waypoint.routine),
                     'status': status})
    return {'waypoints': rows, 'mode': FOLLOWING.get(int(msg.mode), str(msg.mode)),
            'reverse': bool(msg.reverse), 'frame': str(msg.header.frame_id)}


def thinned(points: Sequence[Any], limit: int) -> List[Any]:
    """Return at most ``limit`` of ``points``, evenly spread, the first and last kept."""
    if len(points) <= limit:
        return list(points)
    step = (len(points) - 1) / (limit - 1)
    return [points[round(i * step)] for i in range(limit)]


def path_view(msg: Any) -> Dict[str, Any]:
    """Return a nav_msgs/Path as ``[[x, y], ...]``."""
    poses = thinned(list(msg.poses), MAX_PATH_POINTS)
    return {'points': [[_mm(s.pose.position.x), _mm(s.pose.position.y)] for s in poses],
            'frame': str(msg.header.frame_id)}


def goals_view(msg: Any) -> Dict[str, Any]:
    """Return exploration goals (a PoseArray) as ``[[x, y], ...]`` and their count."""
    poses = list(msg.poses)
    return {'points': [[_mm(p.position.x), _mm(p.position.y)] for p in poses[:MAX_GOALS]],
            'count': len(poses)}


def pose_view(pose: Optional[Sequence[float]], error: str = '') -> Dict[str, Any]:
    """Return the robot pose ``(x, y, yaw)`` in the map, or why it is unknown."""
    if pose is None:
        return {'known': False, 'error': error}
    x, y, yaw = pose
    return {'known': True, 'x': _mm(x), 'y': _mm(y), 'yaw': round(float(yaw), 4)}


def map_meta(msg: Any, version: int, known: float) -> Dict[str, Any]:
    """Return what the page needs to place a map picture: size, resolution, origin."""
    info = msg.info
    origin = info.origin
    return {'version': version, 'width': int(info.width), 'height': int(info.height),
            'resolution': float(info.resolution), 'origin_x': float(origin.position.x),
            'origin_y': float(origin.position.y), 'origin_yaw': yaw_of(origin.orientation),
            'frame': str(msg.header.frame_id), 'known': round(known, 4)}
