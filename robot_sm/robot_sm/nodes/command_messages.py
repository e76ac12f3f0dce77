"""
The gateway's messages and the core's values: ``robot_sm_msgs/srv/Command`` both ways.

The gateway (``state_interface``), the mux and the service provider take the same request type;
this module turns a request into a :class:`robot_sm.gateway.request.Request` and fills the
answer, so that the three read and answer it alike.
"""

from typing import Any

from robot_sm.contract import Code
from robot_sm.gateway.request import OperatorId, Request
from robot_sm_msgs.msg import Operator
from robot_sm_msgs.srv import Command


def operator_of(msg: Operator) -> OperatorId:
    """Return the core's operator of a ``robot_sm_msgs/Operator``."""
    return OperatorId(str(msg.name), str(msg.surface), str(msg.address))


def operator_message(operator: OperatorId) -> Operator:
    """Return the ``robot_sm_msgs/Operator`` of the core's operator."""
    return Operator(name=operator.name, surface=operator.surface, address=operator.address)


def request_of(msg: Any) -> Request:
    """Return the core's request of a ``Command`` request (not checked yet)."""
    pose = msg.pose.pose
    p, q = pose.position, pose.orientation
    return Request(
        command=int(msg.command), by=operator_of(msg.by), mode=int(msg.mode),
        following_mode=int(msg.following_mode), reverse=bool(msg.reverse),
        goal_obsolete=int(msg.goal_obsolete),
        pose=(float(p.x), float(p.y), float(p.z), float(q.x), float(q.y), float(q.z),
              float(q.w)),
        frame=str(msg.pose.header.frame_id), waypoint_id=int(msg.waypoint_id),
        index=int(msg.index), position=int(msg.position), routine=str(msg.routine),
        stale_after=float(msg.stale_after))


def answer(response: Any, code: Code, message: str, changed: bool = True) -> Any:
    """Fill ``response`` (a ``Command`` response) with ``code`` and ``message``; return it."""
    response.success = code is Code.DONE
    response.code = int(code)
    response.message = message
    response.changed = changed and code is Code.DONE
    return response


__all__ = ['answer', 'Command', 'operator_message', 'operator_of', 'request_of']
