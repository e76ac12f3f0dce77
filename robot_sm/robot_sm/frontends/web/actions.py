"""
What each control of the page does: one call of :class:`robot_sm.client.SuiteClient`.

The same calls as ``robot-sm`` and the rqt panel make, so the suite's own refusals reach the
operator word for word. A waypoint is named by its id (indices shift when someone else edits the
list); it is looked up in the newest list just before the call. These functions block: the
server runs them on worker threads, never on its event loop.
"""

from typing import Any, Callable, Dict

from robot_sm.client import Result, SuiteClient, SuiteUnavailable
from robot_sm.frontends.web.bridge import RobotBridge
from robot_sm.frontends.web.protocol import Call


def _waypoint(bridge: RobotBridge, args: Dict[str, Any],
              then: Callable[[int], Result]) -> Result:
    position = bridge.position_of(args['id'])
    if position is None:
        return Result(False, f"waypoint id {args['id']} is not in the list (any more)")
    return then(position)


def _move(bridge: RobotBridge, args: Dict[str, Any]) -> Result:
    def move(position: int) -> Result:
        yaw = args['yaw']
        if yaw is None:  # keep the heading the waypoint has
            rows = bridge.client.waypoints().data['waypoints']
            yaw = rows[position].yaw if position < len(rows) else 0.0
        return bridge.client.move_waypoint(position, args['x'], args['y'], yaw)
    return _waypoint(bridge, args, move)


#: Per action of :data:`robot_sm.frontends.web.protocol.ACTIONS`, what it calls.
CALLS: Dict[str, Callable[[RobotBridge, Dict[str, Any]], Result]] = {
    'stop': lambda b, a: b.client.set_emergency_stop(True),
    'release': lambda b, a: b.client.set_emergency_stop(False),
    'mode': lambda b, a: b.client.set_mode(a['mode']),
    'waypoint_add': lambda b, a: b.client.add_waypoint(a['x'], a['y'], a['yaw'], a['routine'],
                                                       a['position']),
    'waypoint_move': _move,
    'waypoint_remove': lambda b, a: _waypoint(b, a, b.client.remove_waypoint),
    'waypoint_routine': lambda b, a: _waypoint(
        b, a, lambda position: b.client.set_routine(position, a['routine'])),
    'waypoints_reset': lambda b, a: b.client.reset_waypoints(),
    'follow_start': lambda b, a: b.client.start_waypoint_following(a['mode'], a['reverse']),
    'follow_stop': lambda b, a: b.client.stop_waypoint_following(),
    'explore_start': lambda b, a: b.client.start_exploration(a['interrupt']),
    'explore_stop': lambda b, a: b.client.stop_exploration(),
    'goal': lambda b, a: b.client.send_goal(a['x'], a['y'], a['yaw']),
    'goal_cancel': lambda b, a: b.client.cancel_goal(),
    'reverse': lambda b, a: b.client.set_reverse(a['on']),
}


def perform(bridge: RobotBridge, call: Call) -> Result:
    """Do ``call`` on the suite of ``bridge``; return its answer (never raises)."""
    try:
        return CALLS[call.action](bridge, call.args)
    except SuiteUnavailable as error:
        return Result(False, str(error))
    except Exception as error:  # noqa: B902 - a control must never fail silently
        return Result(False, f'{type(error).__name__}: {error}')


def stop(client: SuiteClient) -> Result:
    """Engage the e-stop through ``client`` (the page's Software Stop); never raises."""
    try:
        return client.set_emergency_stop(True)
    except SuiteUnavailable as error:
        return Result(False, str(error))
