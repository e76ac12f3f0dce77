"""
The policy of starts: what the gateway does around an operator's start of an activity.

After a (re)start the mux is STOPPED until an operator selects a mode (the restart interlock).
A start of waypoint following, exploration or a simple goal is an operator's deliberate request
for autonomous motion, so when the state machine is idle and the mux is STOPPED with its e-stop
released, AUTONOMOUS is selected for it first. The settings the start names (the following mode
and direction, the goal-obsolete behaviour) are set before it. A start the state machine then
refuses is undone, last step first: the mux back to STOPPED, the settings as they were. An
engaged e-stop refuses every start before anything changes; a mode an operator selected
(TELEOPERATION, AUTONOMOUS) is never changed by a start.

:func:`plan_start` decides from what the gateway knows (:class:`Situation`); the node carries
the plan out. Pure: no rclpy.
"""

from dataclasses import dataclass
from typing import Optional, Tuple

from robot_sm.contract import FollowingMode, GoalObsolete, KEEP, Mode

#: What a start answers while the e-stop is engaged (the Emergency Stop state's own answer).
EMERGENCY_STOP = 'Emergency Stop'


@dataclass(frozen=True)
class Situation:
    """What the gateway knows when a start arrives."""

    #: The mux's mode as last published; None before the first.
    mode: Optional[Mode]
    emergency_stop: bool
    #: The state machine is in Idle with no transition pending (a start would be taken).
    idle: bool
    #: The waypoint list's following mode and direction as last published; None before.
    following: Optional[Tuple[FollowingMode, bool]] = None
    #: Whether exploration interrupts its goal when it is no longer a frontier; None before.
    exploration_interrupt: Optional[bool] = None


@dataclass(frozen=True)
class StartPlan:
    """The steps around a start, and how to undo them."""

    #: Why the start is refused before anything changes; '' to go on.
    refusal: str = ''
    #: The following mode and direction to set first, and the ones to put back.
    following: Optional[Tuple[FollowingMode, bool]] = None
    following_before: Optional[Tuple[FollowingMode, bool]] = None
    #: The goal-obsolete behaviour (interrupt: True) to set first, and the one to put back.
    exploration_interrupt: Optional[bool] = None
    exploration_before: Optional[bool] = None
    #: Select AUTONOMOUS before the start (and STOPPED again if it is refused).
    select_autonomy: bool = False


def plan_start(situation: Situation, following_mode: int = KEEP, reverse: bool = False,
               goal_obsolete: int = KEEP) -> StartPlan:
    """
    Return the steps around a start in ``situation``.

    ``following_mode`` (with ``reverse``) and ``goal_obsolete`` are the settings the start
    names (``KEEP``: none).
    """
    if situation.emergency_stop:
        return StartPlan(refusal=EMERGENCY_STOP)
    following = None
    if following_mode != KEEP:
        wanted = (FollowingMode(following_mode), bool(reverse))
        if wanted != situation.following:
            following = wanted
    interrupt = None
    if goal_obsolete != KEEP:
        wanted_interrupt = GoalObsolete(goal_obsolete) is GoalObsolete.INTERRUPT
        if wanted_interrupt != situation.exploration_interrupt:
            interrupt = wanted_interrupt
    return StartPlan(
        following=following,
        following_before=situation.following if following is not None else None,
        exploration_interrupt=interrupt,
        exploration_before=situation.exploration_interrupt if interrupt is not None else None,
        select_autonomy=situation.idle and situation.mode in (None, Mode.STOPPED))


def selected_for_start(message: str) -> str:
    """Return a start's answer when AUTONOMOUS was selected for it."""
    return f'{message} (the mux was STOPPED: AUTONOMOUS selected)'
