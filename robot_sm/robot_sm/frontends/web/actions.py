"""
What each control of the page does: one call of :class:`robot_sm.client.SuiteClient`.

The same calls as ``robot-sm`` and the rqt panel make, commands of the suite's gateway given as
the page's operator, so the suite's own refusals reach the operator word for word. A waypoint is
named by its id (indices shift when someone else edits the list). These functions block: the
server runs them on worker threads, never on its event loop.
"""

from typing import Any, Callable, Dict

from robot_sm.client import Result, SuiteClient, SuiteUnavailable
from robot_sm.frontends.web.protocol import Call
from robot_sm_msgs.msg import Operator

#: Seconds of silence after which the control an operator page holds goes stale: the page
#: keeps it alive every second while it is open (``Console.keep_control``).
CONTROL_STALE_AFTER = 3.0


def _move(client: SuiteClient, args: Dict[str, Any]) -> Result:
    yaw = args['yaw']
    if yaw is None:  # keep the heading the waypoint has
        rows = client.waypoints().data['waypoints']
        yaw = next((row.yaw for row in rows if row.waypoint_id == args['id']), 0.0)
    return client.move_waypoint(-1, args['x'], args['y'], yaw, waypoint_id=args['id'])


#: Per action of :data:`robot_sm.frontends.web.protocol.ACTIONS`, what it calls.
CALLS: Dict[str, Callable[[SuiteClient, Dict[str, Any]], Result]] = {
    'stop': lambda c, a: c.set_emergency_stop(True),
    'release': lambda c, a: c.set_emergency_stop(False),
    'mode': lambda c, a: c.set_mode(a['mode']),
    'waypoint_add': lambda c, a: c.add_waypoint(a['x'], a['y'], a['yaw'], a['routine'],
                                                a['position']),
    'waypoint_move': _move,
    'waypoint_remove': lambda c, a: c.remove_waypoint(waypoint_id=a['id']),
    'waypoint_routine': lambda c, a: c.set_routine(-1, a['routine'], waypoint_id=a['id']),
    'waypoints_reset': lambda c, a: c.reset_waypoints(),
    'follow_start': lambda c, a: c.start_waypoint_following(a['mode'], a['reverse']),
    'follow_stop': lambda c, a: c.stop_waypoint_following(),
    'explore_start': lambda c, a: c.start_exploration(a['interrupt']),
    'explore_stop': lambda c, a: c.stop_exploration(),
    'goal': lambda c, a: c.send_goal(a['x'], a['y'], a['yaw']),
    'goal_cancel': lambda c, a: c.cancel_goal(),
    'reverse': lambda c, a: c.set_reverse(a['on']),
    'pause': lambda c, a: c.pause(),
    'continue': lambda c, a: c.resume(),
    'take_control': lambda c, a: c.take_control(CONTROL_STALE_AFTER),
    'give_up_control': lambda c, a: c.release_control(),
}


def perform(client: SuiteClient, call: Call, by: Operator) -> Result:
    """Do ``call`` on the suite of ``client`` as ``by``; return its answer (never raises)."""
    try:
        return CALLS[call.action](client.with_operator(by), call.args)
    except SuiteUnavailable as error:
        return Result(False, str(error))
    except Exception as error:  # noqa: B902 - a control must never fail silently
        return Result(False, f'{type(error).__name__}: {error}')


def stop(client: SuiteClient, by: Operator) -> Result:
    """Engage the e-stop through ``client`` as ``by`` (the page's STOP); never raises."""
    try:
        return client.with_operator(by).set_emergency_stop(True)
    except SuiteUnavailable as error:
        return Result(False, str(error))
