"""
The engine: one current state, at most one pending, ticks in RSM's ``awake()`` order.

Each :meth:`StateMachine.tick`:

1. the current state's ``on_active`` runs (once more, even if a transition is pending);
2. if a transition is pending: the current state's ``on_exit``, the new state's ``on_entry``,
   then the new name is published (Boot's included).

Requests between ticks replace each other: the last one wins. Interrupts come from the mux's
operation mode, delivered once per edge (e-stop engaged, teleoperation taken, either ended) and
once more to every state entered while the condition lasts; a simple goal is delivered once and
travels with the transition as the new state's goal. A state that raises is logged with its
traceback, its exit is attempted, the robot is stopped (``stop_robot``) and the machine goes to
Idle: an exception never kills the node or leaves the robot moving.
"""

import threading
import traceback
from typing import Any, Callable, Dict, Optional, Protocol

from robot_sm.statemachine.base_state import Answer, BaseState
from robot_sm.statemachine.constants import Interrupt, NavigationMode, OperationMode, Role
from robot_sm.statemachine.goal import NavigationGoal
from robot_sm.statemachine.port import Logger


class StateFactory(Protocol):
    """Creates the state of a role; never raises (a failing plugin gives Idle)."""

    def create(self, role: Role, goal: Optional[NavigationGoal] = None,
               routine: str = '') -> BaseState:
        """Return a new state for ``role``."""

    def fallback(self) -> BaseState:
        """Return a built-in Idle state, for when the configured one fails."""


class StateMachine:
    """RSM's state interface: transitions, ticks, interrupts and operators' commands."""

    def __init__(self, factory: StateFactory, logger: Logger,
                 publish_state: Callable[[str], None] = lambda name: None,
                 publish_outcome: Callable[[str], None] = lambda text: None,
                 stop_robot: Callable[[str], None] = lambda reason: None) -> None:
        self._factory = factory
        self._logger = logger
        self._publish_state = publish_state
        self._publish_outcome = publish_outcome
        self._stop_robot = stop_robot
        self._lock = threading.RLock()
        self.state: Optional[BaseState] = None
        self.pending: Optional[BaseState] = None
        #: The last simple goal received; a state taking it goes to Navigation with it.
        self.simple_goal: Optional[NavigationGoal] = None
        #: Whether Boot has finished (an e-stop during boot returns to Boot on release).
        self.booted = False
        #: Memory shared by the states of one activity (e.g. rounds of waypoint following).
        self.shared: Dict[str, Any] = {}
        self._condition: Optional[Interrupt] = None
        self._delivering = False
        self._requested = False

    @property
    def state_name(self) -> str:
        """Return the current state's name, or '' before the first tick."""
        with self._lock:
            return self.state.name if self.state is not None else ''

    # -- transitions --------------------------------------------------------------------------

    def start(self) -> None:
        """Request Boot and run the first tick (Boot's entry and first activity)."""
        with self._lock:
            self.request(Role.BOOT)
            self.tick()

    def request(self, role: Role, goal: Optional[NavigationGoal] = None, routine: str = '',
                requester: Optional[BaseState] = None) -> bool:
        """Create the state of ``role`` and request the transition; see :meth:`transition_to`."""
        with self._lock:
            if requester is not None and requester is not self.state:
                self._logger.debug(f'{requester.name} is not current: its request for '
                                   f'{role.value} is ignored')
                return False
            return self.transition_to(self._factory.create(role, goal, routine))

    def transition_to(self, state: BaseState) -> bool:
        """
        Make ``state`` the pending state and run its ``on_setup``; it is entered next tick.

        Ignored (False) if ``state`` is already current or owned by a machine. A later request
        before the tick replaces this one.
        """
        with self._lock:
            if state is self.state or state.machine is not None:
                return False
            state.machine = self
            self.pending = state
            self._requested = True
            if not self._run(state, state.on_setup, 'on_setup'):
                return False
            return True

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

    def _enter(self, state: BaseState) -> None:
        self.state, self.pending = state, None
        if not self._run(state, state.on_entry, 'on_entry'):
            return
        self._publish_state(state.name)
        if self._condition is not None:
            # The e-stop or teleoperation still holds: the new state hears of it once.
            self.interrupt(self._condition)

    def _run(self, state: BaseState, hook: Callable[[], Any], hook_name: str,
             exiting: bool = False) -> bool:
        """Call a hook of ``state``; on an exception go to Idle safely and return False."""
        try:
            hook()
            return True
        except Exception as error:  # noqa: B902 - a plugin's fault must not kill the node
            self._fail(state, hook_name, error, exiting)
            return False

    def _fail(self, state: BaseState, hook_name: str, error: BaseException,
              exiting: bool) -> None:
        reason = f'{state.name} raised in {hook_name}: {type(error).__name__}: {error}'
        self._logger.error(f'{reason}\n{traceback.format_exc()}')
        self._stop_robot(reason)
        self._publish_outcome(f'{reason}; going to Idle')
        if exiting:
            # Its exit was what failed: the requested state still follows (it may be the
            # Emergency Stop), the robot has been stopped.
            return
        if state is self.state and hook_name != 'on_setup':
            self._exit_quietly(state, 'after failing')
        if state is self.pending and self.state is not None:
            # A requested state failed to set up: the current one is left for Idle.
            self.pending = None
            self._exit_quietly(self.state, 'on the way to Idle')
        self._go_idle(state)

    def _exit_quietly(self, state: BaseState, when: str) -> None:
        """Run ``state.on_exit`` where a failure can only be logged."""
        try:
            state.on_exit()
        except Exception as error:  # noqa: B902 - a plugin's fault must not kill the node
            self._logger.error(f'{state.name} raised in on_exit {when}: {error!r}')

    def _go_idle(self, failed: BaseState) -> None:
        idle = self._factory.create(Role.IDLE)
        if type(idle) is type(failed):
            idle = self._factory.fallback()
        idle.machine = self
        self.state, self.pending = idle, None
        try:
            idle.on_setup()
            idle.on_entry()
        except Exception as error:  # noqa: B902
            self._logger.error(f'{idle.name} raised on entry: {error!r}; using the built-in Idle')
            idle = self._factory.fallback()
            idle.machine = self
            self.state = idle
        self._publish_state(idle.name)

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
            self.interrupt(Interrupt.INTERRUPT_END if condition is None else condition)

    def on_simple_goal(self, pose: Any) -> bool:
        """Deliver a simple goal (a ``geometry_msgs/Pose`` in the map frame) once."""
        with self._lock:
            self.simple_goal = NavigationGoal(pose, NavigationMode.SIMPLE_GOAL)
            taken = self.interrupt(Interrupt.SIMPLE_GOAL)
            if not taken and self.state is not None:
                self._logger.info(f'simple goal ignored in {self.state.name}')
            return taken

    def stop_simple_goal(self) -> Answer:
        """Deliver SIMPLE_GOAL_STOP; answer whether a simple goal was stopped."""
        with self._lock:
            if self.interrupt(Interrupt.SIMPLE_GOAL_STOP):
                return True, 'Simple goal stopped'
            return False, f'No simple goal running ({self.state_name or "no state yet"})'

    def interrupt(self, interrupt: Interrupt) -> bool:
        """Deliver ``interrupt`` to the current state; return True if it requested a state."""
        state = self.state
        if state is None:
            return False
        self._requested = False
        self._run(state, lambda: state.on_interrupt(interrupt), f'on_interrupt({interrupt.name})')
        return self._requested

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
            state = self.state
            if state is None:
                return False, 'No active state'
            answer: Answer = (False, '')

            def call() -> None:
                nonlocal answer
                answer = getattr(state, hook_name)()

            if not self._run(state, call, hook_name):
                return False, f'{state.name} failed on this request (see the log); now Idle'
            success, message = answer
            return bool(success), str(message)
