"""
The engine: one current state, at most one pending, ticks in RSM's ``awake()`` order.

Each :meth:`StateMachine.tick`:

1. the current state's ``on_active`` runs (once more, even if a transition is pending);
2. if a transition is pending: the current state's ``on_exit``, the new state's ``on_entry``,
   then the new name is published (Boot's included).

Where the machine goes is the cycle's table (:mod:`robot_sm.statemachine.cycle`): a state's
outcome leads to ``TRANSITIONS[role][outcome]``, an interrupt to ``INTERRUPTS[role][interrupt]``.
Requests between ticks replace each other, the last one wins, except that an interrupt is only
replaced by one of the same or a higher priority, and never by a state's own outcome.

Interrupts come from the mux's operation mode, delivered once per edge (e-stop engaged,
teleoperation taken, either ended), and the mode as it is reaches every state entered; a simple
goal travels with the transition as the new state's goal. A state that raises, or ends with an
outcome the cycle does not handle for it, is logged with the traceback, its exit is attempted,
the robot is stopped (``stop_robot``) and the machine goes to Idle: an exception never kills the
node or leaves the robot moving.
"""

import threading
import traceback
from typing import Any, Callable, Optional, Protocol

from robot_sm.contract import Answer
from robot_sm.statemachine.activity import Activity, ActivityRuns, Ended, Outcome
from robot_sm.statemachine.base_state import BaseState
from robot_sm.statemachine.constants import OperationMode
from robot_sm.statemachine.context import Logger
from robot_sm.statemachine.cycle import (
    Handover,
    Interrupt,
    interrupt_target,
    next_role,
    PRIORITY,
    Role,
)
from robot_sm.statemachine.pausing import Pausing
from robot_sm.statemachine.report import StateReport
from robot_sm.statemachine.resumable import Resumable
from robot_sm.waypoints.navigation_goal import NavigationGoal, NavigationMode
from robot_sm.waypoints.pose import Pose


class StateFactory(Protocol):
    """Creates the state of a role; never raises (a failing plugin gives Idle)."""

    def create(self, role: Role, handover: Handover = Handover()) -> BaseState:
        """Return a new state for ``role``."""

    def fallback(self) -> BaseState:
        """Return a built-in Idle state, for when the configured one fails."""

    def failure(self, state: BaseState, role: Role) -> str:
        """Return why ``state`` does not play ``role`` (its plugin failed); '' if it does."""


class UnhandledOutcome(RuntimeError):
    """A state ended with an outcome its class does not declare or the cycle does not handle."""


class StateMachine(Pausing):
    """RSM's state interface: transitions by the cycle's table, ticks, interrupts, commands."""

    def __init__(self, factory: StateFactory, logger: Logger,
                 publish_state: Callable[[str], None] = lambda name: None,
                 publish_outcome: Callable[[str], None] = lambda text: None,
                 stop_robot: Callable[[str], None] = lambda reason: None,
                 running: Callable[[], bool] = lambda: True,
                 publish_report: Callable[[StateReport], None] = lambda report: None,
                 activity_ended: Callable[[Ended], None] = lambda ended: None,
                 keep_resumable: Callable[[Optional[Resumable]], None] = lambda kept: None
                 ) -> None:
        """
        Run states made by ``factory``.

        ``publish_state`` is given the state's name and ``publish_report`` the typed report
        (:class:`~robot_sm.statemachine.report.StateReport`) on every transition and whenever
        an activity ends or a start is refused; ``activity_ended`` is told each run's end as
        it happens (two may end before the next report: a run and one begun in the same tick);
        ``keep_resumable`` the running or paused activity's place (:mod:`.pausing`).

        ``running`` says whether the node still runs: a hook that raises once it does not (rclpy
        shut down under it, at Ctrl-C) is not a plugin's fault, and the error is raised on.
        """
        self._factory = factory
        self._running = running
        self._logger = logger
        self._publish_state = publish_state
        self._publish_outcome = publish_outcome
        self._stop_robot = stop_robot
        self._publish_report = publish_report
        self._activity_ended = activity_ended
        #: The runs of activities: the current one and how the last ended.
        self.runs = ActivityRuns(self._on_ended)
        self._init_pausing(keep_resumable)
        self._lock = threading.RLock()
        self.state: Optional[BaseState] = None
        self.pending: Optional[BaseState] = None
        #: The interrupt that requested :attr:`pending`, if one did.
        self._pending_interrupt: Optional[Interrupt] = None
        #: The mux's condition: EMERGENCY_STOP, TELEOPERATION, or None.
        self._condition: Optional[Interrupt] = None

    def _on_ended(self, ended: Ended) -> None:
        self._activity_ended(ended)
        if self.runs.current is None:
            self._keep(self.paused)  # nothing runs now: only a paused activity is kept

    @property
    def state_name(self) -> str:
        """Return the current state's name, or '' before the first tick."""
        with self._lock:
            return self.state.name if self.state is not None else ''

    # -- transitions --------------------------------------------------------------------------

    def start(self) -> None:
        """Request Boot and run the first tick (Boot's entry and first activity)."""
        with self._lock:
            self.transition_to(self._factory.create(Role.BOOT))
            self.tick()

    def end(self, state: BaseState, outcome: str, message: str, handover: Handover) -> bool:
        """
        Take ``outcome`` of ``state``: request the role the cycle gives and publish ``message``.

        Refused (False) if ``state`` is not current or an interrupt already moved the machine on.

        :raises UnhandledOutcome: if the outcome is not declared or not handled for the role.
        """
        with self._lock:
            if state is not self.state:
                self._logger.debug(f'{state.name} is not current: its outcome {outcome} is '
                                   'ignored')
                return False
            if self._pending_interrupt is not None:
                return False
            declared = type(state).OUTCOMES
            target = next_role(state.role, outcome)
            if outcome not in declared or target is None:
                why = ('it does not declare' if outcome not in declared else
                       f"the cycle does not handle for role '{state.role.value}'")
                raise UnhandledOutcome(f"{state.name} ended with outcome '{outcome}', which "
                                       f"{why} (declared: {', '.join(declared) or 'none'})")
            target = self.back_to_paused(state.role, target)
            following = self.prepared(self._factory.create(target, handover))
            if not self.transition_to(following):
                return False
            state.outcome = outcome
            if state.role is Role.PAUSED:
                self.paused_ended(outcome, message or outcome, following.name)
            else:
                self.runs.moving(following.activity_run, following.name, leaving=state.role,
                                 outcome=outcome, text=message,
                                 failure=self._factory.failure(following, target))
            if message:
                self.report(state, message)
            return True

    def transition_to(self, state: BaseState) -> bool:
        """
        Make ``state`` the pending state and run its ``on_setup``; it is entered next tick.

        Ignored (False) if ``state`` is already current or owned by a machine. A later request
        before the tick replaces this one.
        """
        with self._lock:
            if state is self.state or state.engine is not None:
                return False
            state.engine = self
            self.pending = state
            self._pending_interrupt = None
            return self._run(state, state.on_setup, 'on_setup')

    def tick(self) -> None:
        """Run one cycle in ``awake()`` order."""
        with self._lock:
            if self.state is None:
                if self.pending is None:
                    return
                self._enter(self.pending)
            current = self.state
            assert current is not None
            self._run(current, current.on_active, 'on_active')
            if self.pending is not None and self.state is current:
                self._run(current, current.on_exit, 'on_exit', exiting=True)
            if self.pending is not None:
                self._enter(self.pending)

    def _enter_pending(self) -> None:
        """
        Enter the pending state now: an operator's command is the next state's to answer.

        A stop that arrives between a start and the next tick stops what was started.
        """
        current = self.state
        if self.pending is None or current is None:
            return
        self._run(current, current.on_exit, 'on_exit', exiting=True)
        if self.pending is not None:
            self._enter(self.pending)

    def _enter(self, state: BaseState) -> None:
        self.state, self.pending, self._pending_interrupt = state, None, None
        if not self._run(state, state.on_entry, 'on_entry'):
            return
        self._publish_state(state.name)
        self.publish_report()
        self.keep_running(state)
        # The mux's mode as it is now reaches the new state: an e-stop or teleoperation that
        # still holds, or the end of one that ended before the state was entered.
        self.interrupt(self._condition or Interrupt.INTERRUPT_END)

    def _run(self, state: BaseState, hook: Callable[[], Any], hook_name: str,
             exiting: bool = False) -> bool:
        """Call a hook of ``state``; on an exception go to Idle safely and return False."""
        try:
            hook()
            return True
        except Exception as error:  # noqa: B902 - a plugin's fault must not kill the node
            if not self._running():
                raise
            self._fail(state, hook_name, error, exiting)
            return False

    def _fail(self, state: BaseState, hook_name: str, error: BaseException,
              exiting: bool) -> None:
        reason = f'{state.name} raised in {hook_name}: {type(error).__name__}: {error}'
        self._logger.error(f'{reason}\n{traceback.format_exc()}')
        self._stop_robot(reason)
        self._publish_outcome(f'{reason}; going to Idle')
        if not exiting:
            self.runs.end(Outcome.FAILED, reason, 'Idle')
        if exiting:
            # Its exit was what failed: the requested state still follows (it may be the
            # Emergency Stop), the robot has been stopped.
            return
        if state is self.state and hook_name != 'on_setup':
            self._exit_quietly(state, 'after failing')
        if state is self.pending and self.state is not None:
            # A requested state failed to set up: the current one is left for Idle.
            self._exit_quietly(self.state, 'on the way to Idle')
        self._go_idle(state)

    def _exit_quietly(self, state: BaseState, when: str) -> None:
        """Run ``state.on_exit`` where a failure can only be logged."""
        try:
            state.on_exit()
        except Exception as error:  # noqa: B902 - a plugin's fault must not kill the node
            self._logger.error(f'{state.name} raised on exit {when}: {error!r}')

    def _go_idle(self, failed: BaseState) -> None:
        idle = self.prepared(self._factory.create(self.back_to_paused(Role.BOOT, Role.IDLE)))
        if type(idle) is type(failed):
            idle = self._factory.fallback()
        idle.engine = self
        self.state, self.pending, self._pending_interrupt = idle, None, None
        try:
            idle.on_setup()
            idle.on_entry()
        except Exception as error:  # noqa: B902
            self._logger.error(f'{idle.name} raised on entry: {error!r}; using the built-in Idle')
            idle = self._factory.fallback()
            idle.engine = self
            self.state = idle
        self._publish_state(idle.name)
        self.publish_report()

    def state_report(self) -> StateReport:
        """Return the typed report of the current state and activities."""
        with self._lock:
            state = self.state
            paused = self.paused
            resumable = paused.describe() if paused is not None else ''
            if state is None:
                return StateReport('', '', '', self.runs.current, self.runs.last,
                                   self.runs.paused, resumable)
            return StateReport(state.name, state.role.name.lower(), state.plugin,
                               self.runs.current, self.runs.last, self.runs.paused, resumable)

    def publish_report(self) -> None:
        """Publish the typed report now."""
        self._publish_report(self.state_report())

    def shutdown(self) -> None:
        """Let the current state exit (RSM's destructor did): it stops what it commanded."""
        with self._lock:
            state, self.state, self.pending = self.state, None, None
            if state is not None:
                self._exit_quietly(state, 'at shutdown')

    def report(self, state: BaseState, message: str) -> None:
        """Publish how ``state`` ended, for operators."""
        self._logger.info(f'{state.name}: {message}')
        self._publish_outcome(f'{state.name}: {message}')

    # -- interrupts ---------------------------------------------------------------------------

    def on_operation_mode(self, mode: int, emergency_stop: bool) -> None:
        """Take the mux's operation mode; deliver an interrupt when its condition changes."""
        if emergency_stop:
            condition: Optional[Interrupt] = Interrupt.EMERGENCY_STOP
        elif mode == OperationMode.TELEOPERATION:
            condition = Interrupt.TELEOPERATION
        else:
            condition = None
        with self._lock:
            if condition == self._condition:
                return
            self._condition = condition
            self.interrupt(condition or Interrupt.INTERRUPT_END)

    def on_simple_goal(self, pose: Pose) -> bool:
        """Deliver a simple goal (a pose in the map frame); return whether a state took it."""
        with self._lock:
            goal = NavigationGoal(pose, NavigationMode.SIMPLE_GOAL)
            taken = self.interrupt(Interrupt.SIMPLE_GOAL, Handover(goal=goal))
            if not taken and self.state is not None:
                self._logger.info(f'simple goal ignored in {self.state.name}')
                self.refuse(Activity.SIMPLE_GOAL, f'simple goal ignored in {self.state.name}')
            return taken

    def refuse(self, activity: Activity, text: str) -> None:
        """Record and publish a start of ``activity`` the suite refused, saying why."""
        with self._lock:
            self.runs.refuse(activity, text)
            self.publish_report()

    def stop_simple_goal(self) -> Answer:
        """Deliver SIMPLE_GOAL_STOP; answer whether a simple goal was stopped."""
        with self._lock:
            state = self.state
            if state is not None and state.role is Role.PAUSED:
                return self._command('stop_simple_goal')
            if state is not None and self.interrupt(Interrupt.SIMPLE_GOAL_STOP):
                self.report(state, 'Simple goal stopped')
                return Answer(True, 'Simple goal stopped')
            return Answer(False, f'No simple goal running ({self.state_name or "no state yet"})')

    def interrupt(self, interrupt: Interrupt, handover: Handover = Handover()) -> bool:
        """
        Deliver ``interrupt`` to the current state's role; return True if it moved the machine.

        Ignored where the cycle has no target for the role, and while an interrupt of higher
        priority is pending: an e-stop in the same tick as a simple goal wins in either order.
        """
        with self._lock:
            state = self.state
            if state is None:
                return False
            target = interrupt_target(state.role, interrupt)
            pending = self._pending_interrupt
            if target is None or (pending is not None and PRIORITY[pending] > PRIORITY[interrupt]):
                return False
            target = self.back_to_paused(state.role, target)
            following = self.prepared(self._factory.create(target, handover))
            if not self.transition_to(following):
                return False
            self._pending_interrupt = interrupt
            self.runs.moving(following.activity_run, following.name, by=interrupt,
                             failure=self._factory.failure(following, target))
            if state.running:
                state.interrupted = interrupt
            return True

    # -- operators' commands --------------------------------------------------------------------

    def start_stop_exploration(self, start: bool) -> Answer:
        """Forward an exploration start or stop to the current state; return its answer."""
        return self._command('on_exploration_start' if start else 'on_exploration_stop')

    def start_stop_waypoint_following(self, start: bool) -> Answer:
        """Forward a waypoint following start or stop to the current state; return its answer."""
        return self._command('on_waypoint_following_start' if start
                             else 'on_waypoint_following_stop')

    def _command(self, hook_name: str) -> Answer:
        with self._lock:
            self._enter_pending()
            state = self.state
            if state is None:
                return Answer(False, 'No active state')
            answer = Answer(False, '')

            def call() -> None:
                nonlocal answer
                answer = getattr(state, hook_name)()

            if not self._run(state, call, hook_name):
                return Answer(False, f'{state.name} failed on this request (see the log); '
                                     'now Idle')
            return Answer(bool(answer[0]), str(answer[1]))
