"""
The service provider's part of the command gateway: edits and settings it checked and forwards.

``robot_sm/_service_provider/command`` (``robot_sm_msgs/srv/Command``) takes the commands the
gateway forwards once it checked them: waypoint edits naming a waypoint by its stable id (or by
index), the following mode and direction or the goal-obsolete behaviour a start sets, reverse
driving. Each is carried out by the :class:`robot_sm.waypoints.DataStore` as the RSM services'
requests are, and answered with a code: INVALID for an argument the store refuses, REFUSED for
anything else it does not carry out; nothing changes then.
"""

import threading
from types import SimpleNamespace
from typing import Any, Awaitable, Callable

from robot_sm.contract import Code, Command as Kind, GoalObsolete, KEEP
from robot_sm.nodes.command_messages import answer
from robot_sm.waypoints import DataStore, RequestError
from robot_sm.waypoints.pose import checked_pose
from robot_sm_msgs.srv import Command


def _position(store: DataStore, msg: Any) -> int:
    """Return the index of the waypoint ``msg`` names (by id; by index when the id is 0)."""
    if not msg.waypoint_id:
        return int(msg.index)
    position = store.waypoints.index_of(int(msg.waypoint_id))
    if position is None:
        raise RequestError('waypoint_id', f'waypoint id {msg.waypoint_id} is not in the list')
    return position


def _pose(msg: Any) -> Any:
    p, q = msg.pose.pose.position, msg.pose.pose.orientation
    return checked_pose('pose', p.x, p.y, p.z, q.x, q.y, q.z, q.w)


def _settings(store: DataStore, msg: Any) -> str:
    """Set what a start names: the following mode and direction, or the goal-obsolete rule."""
    if msg.command == Kind.START_WAYPOINT_FOLLOWING:
        if msg.following_mode == KEEP:
            return 'following mode kept'
        return store.set_following_mode(int(msg.following_mode), bool(msg.reverse))
    if msg.goal_obsolete == KEEP:
        return 'exploration mode kept'
    if msg.goal_obsolete not in GoalObsolete._value2member_map_:
        raise RequestError('goal_obsolete', f'{msg.goal_obsolete} is not 0 FINISH or 1 INTERRUPT')
    return store.set_exploration_mode(GoalObsolete(msg.goal_obsolete) is GoalObsolete.INTERRUPT)


#: The edits, by command.
EDITS = {
    Kind.MOVE_WAYPOINT: lambda store, msg: store.move_waypoint(_position(store, msg), _pose(msg)),
    Kind.REMOVE_WAYPOINT: lambda store, msg: store.remove_waypoint(_position(store, msg)),
    Kind.SET_WAYPOINT_ROUTINE: lambda store, msg: store.set_waypoint_routine(
        _position(store, msg), str(msg.routine)),
    Kind.REORDER_WAYPOINT: lambda store, msg: store.reorder_waypoint(
        _position(store, msg), int(msg.position)),
    Kind.RESET_WAYPOINTS: lambda store, msg: store.reset_waypoints(),
    Kind.START_WAYPOINT_FOLLOWING: _settings,
    Kind.START_EXPLORATION: _settings,
}


class StoreCommands:
    """The command service of :class:`robot_sm.nodes.service_provider.ServiceProvider`."""

    _store: DataStore
    _lock: threading.Lock
    _state: Callable[[], Any]
    _serve: Callable[[Any, Callable[[], str]], Any]
    _change_reverse_mode: Callable[[bool, Any], Awaitable[Any]]

    async def _on_command(self, request: Command.Request,
                          response: Command.Response) -> Command.Response:
        """Carry out one forwarded command; answer with a code."""
        with self._lock:
            before = self._state()
        outcome = SimpleNamespace(success=False, message='')
        refused_argument = False

        def edit(carry_out: Callable[[], str]) -> Callable[[], str]:
            def run() -> str:
                nonlocal refused_argument
                try:
                    return carry_out()
                except RequestError:
                    refused_argument = True
                    raise
            return run

        kind = int(request.command)
        if kind == Kind.ADD_WAYPOINT:
            def add() -> str:
                response.waypoint_id, message = self._store.add_waypoint(
                    _pose(request), str(request.routine), int(request.position))
                return message
            self._serve(outcome, edit(add))
        elif kind == Kind.SET_REVERSE:
            await self._change_reverse_mode(bool(request.reverse), outcome)
        elif kind in EDITS:
            self._serve(outcome, edit(lambda: EDITS[Kind(kind)](self._store, request)))
        else:
            return answer(response, Code.INVALID, f'command {kind} is not one the service '
                                                  'provider carries out')
        if not outcome.success:
            return answer(response, Code.INVALID if refused_argument else Code.REFUSED,
                          outcome.message)
        with self._lock:
            changed = self._state() != before
        return answer(response, Code.DONE, outcome.message, changed)
