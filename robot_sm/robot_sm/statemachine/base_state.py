"""
The lifecycle every state follows, RSM's ``BaseState`` in Python.

A state is created when a transition to it is requested, with the context it reaches ROS
through, the role it plays (:mod:`robot_sm.statemachine.cycle`) and what the previous state
handed over. The engine then calls:

- :meth:`BaseState.on_setup` at once, when the transition is requested;
- :meth:`BaseState.on_entry` on the next tick, after the old state's last ``on_active`` and
  its ``on_exit``;
- :meth:`BaseState.on_active` on every following tick;
- :meth:`BaseState.on_exit` on the tick the state is left.

A state ends with :meth:`BaseState.finish` and an outcome from its class's ``OUTCOMES``; the
cycle's table says which role follows. Operators' start and stop requests reach the four command
hooks, which answer what RSM answered for the role's activity. Interrupts are the engine's: once
one moved the machine on (:attr:`BaseState.interrupted`), the state's own outcomes are refused,
so the interrupt's target wins, as in RSM.
"""

from typing import Any, ClassVar, Dict, Mapping, Optional, Protocol, Tuple

from robot_sm.contract import Answer
from robot_sm.parameters import Param
from robot_sm.statemachine.activity import Activity, role_activity
from robot_sm.statemachine.context import Context
from robot_sm.statemachine.cycle import ACTIVITIES, Handover, Interrupt, Role, ROLES
from robot_sm.statemachine.suite_port import SuitePort
from robot_sm.waypoints.navigation_goal import NavigationGoal, NavigationMode


class Engine(Protocol):
    """What a state may ask of the engine that runs it."""

    def end(self, state: 'BaseState', outcome: str, message: str, handover: Handover) -> bool:
        """Take ``outcome`` of ``state``: request the role that follows; False if refused."""


class BaseState:
    """
    A state of the operating cycle; subclass it and override the hooks you need.

    Class attributes: ``NAME`` is what operators see (after the prefix of the role's activity,
    ``E: ``, ``W: `` or ``G: ``); ``OUTCOMES`` the outcomes it may end with; ``PARAMETERS`` the
    plugin's parameters, declared on the state interface as ``<plugin>.<name>``; ``ACTIVITY``,
    if set, names an activity of the plugin package's own that the state runs
    (``StateInfo.ACTIVITY_PLUGIN``) instead of its role's; ``PAUSABLE`` false: the state
    cannot be paused (:meth:`on_pause`).
    """

    NAME: ClassVar[str] = ''
    ACTIVITY: ClassVar[str] = ''
    #: Whether the state can be paused (its activity continued later); one that cannot is
    #: stopped instead when an operator pauses it, and says so.
    PAUSABLE: ClassVar[bool] = True
    OUTCOMES: ClassVar[Tuple[str, ...]] = ()
    PARAMETERS: ClassVar[Tuple[Param, ...]] = ()

    def __init__(self, context: Context, role: Role, handover: Handover = Handover()) -> None:
        self.context = context
        self.role = role
        self.handover = handover
        #: The engine, once the state was requested.
        self.engine: Optional[Engine] = None
        #: The outcome the state ended with; None while it has not.
        self.outcome: Optional[str] = None
        #: The interrupt that moved the machine on before the state ended, if one did.
        self.interrupted: Optional[Interrupt] = None
        #: The plugin (entry point) the state was created from; set by the factory.
        self.plugin = type(self).__name__
        #: The place it continues from when it continues a paused activity (:meth:`on_resume`).
        self.resumed: Optional[Mapping[str, Any]] = None

    @property
    def name(self) -> str:
        """Return the name operators see: the activity's prefix and the state's name."""
        return ACTIVITIES[self.activity][0] + (self.NAME or type(self).__name__)

    @property
    def activity(self) -> NavigationMode:
        """Return the activity of the role (what its goals are for), NONE outside activities."""
        return ROLES[self.role].activity

    @property
    def activity_run(self) -> Tuple[Activity, str]:
        """Return the activity the state runs, and a plugin's own activity's name."""
        if self.ACTIVITY:
            return Activity.PLUGIN, self.ACTIVITY
        return role_activity(self.role), ''

    @property
    def distance_remaining(self) -> Optional[float]:
        """Return the distance left to the goal in metres, if the state knows it."""
        return None

    @property
    def goal(self) -> Optional[NavigationGoal]:
        """Return the goal handed over (to drive to, or just driven to), if any."""
        return self.handover.goal

    @property
    def suite(self) -> SuitePort:
        """Return the suite's own services."""
        return self.context.suite

    @property
    def running(self) -> bool:
        """Return True until the state ended or an interrupt moved the machine on."""
        return self.outcome is None and self.interrupted is None

    def __repr__(self) -> str:
        return f'<{type(self).__name__} {self.name!r}>'

    # -- lifecycle hooks --------------------------------------------------------------------

    def on_setup(self) -> None:
        """Prepare when the transition is requested (before the old state exits)."""

    def on_entry(self) -> None:
        """Start: the state is now current."""

    def on_active(self) -> None:
        """Do one tick of work."""

    def on_exit(self) -> None:
        """Clean up: another state follows."""

    # -- pause and continue -----------------------------------------------------------------

    def on_pause(self) -> Dict[str, Any]:
        """
        Return what the state needs to continue where it is (its place), when paused.

        Called when an operator pauses its activity, before it is left (``on_exit`` then stops
        what it commanded). The place must be plain data (numbers, text, lists, mappings): it
        is kept in a file across a restart. The default keeps nothing: the state starts again
        when the activity continues, with what its transition carried (the goal).
        """
        return {}

    def on_resume(self, place: Mapping[str, Any]) -> None:
        """
        Take the place :meth:`on_pause` returned: the state continues a paused activity.

        Called when the state is created to continue it, before ``on_setup``; the default does
        nothing (the state starts again).
        """

    # -- ending -----------------------------------------------------------------------------

    def finish(self, outcome: str, message: str = '',
               handover: Optional[Handover] = None) -> bool:
        """
        End with ``outcome`` (one of ``OUTCOMES``): the cycle's next state is requested.

        ``message`` tells operators how the state ended (``robot_sm/state_outcome``);
        ``handover`` goes to the next state (by default what this state received). Return False
        if refused: an interrupt already moved the machine on, or the state is not current.
        """
        if self.engine is None:
            return False
        return self.engine.end(self, outcome, message,
                               self.handover if handover is None else handover)

    def stop_activity(self, message: str) -> Answer:
        """Answer an operator's stop of the running activity: outcome ``stopped``."""
        if not self.finish('stopped', message):
            return Answer(False, f'{self.name} is handling an interrupt')
        return Answer(True, message)

    # -- operators' commands: RSM's answers for the role's activity -------------------------

    def on_exploration_start(self) -> Answer:
        """Answer a request to start exploration."""
        return self._cannot_start('exploration')

    def on_exploration_stop(self) -> Answer:
        """Answer a request to stop exploration."""
        return self._stop(NavigationMode.EXPLORATION, 'Exploration')

    def on_waypoint_following_start(self) -> Answer:
        """Answer a request to start waypoint following."""
        return self._cannot_start('waypoint following')

    def on_waypoint_following_stop(self) -> Answer:
        """Answer a request to stop waypoint following."""
        return self._stop(NavigationMode.WAYPOINT_FOLLOWING, 'Waypoint following')

    def _cannot_start(self, activity: str) -> Answer:
        if self.activity is NavigationMode.NONE:
            return Answer(False, f'{self.name}: {activity} cannot start in this state')
        return self._running()

    def _stop(self, activity: NavigationMode, label: str) -> Answer:
        if self.activity is activity:
            return self.stop_activity(f'{label} stopped')
        if self.activity is NavigationMode.NONE:
            return Answer(False, f'{label} not running')
        return self._running()

    def _running(self) -> Answer:
        return Answer(False, f'{ACTIVITIES[self.activity][1]} running')
