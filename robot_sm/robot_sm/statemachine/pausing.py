"""
Pause and continue, the state machine's part: hold an activity at its place and take it on.

:class:`Pausing` is a part of :class:`~robot_sm.statemachine.machine.StateMachine`. Pause is an
interrupt of the cycle (``PAUSE``: every state of an activity takes it, to Paused): the state
is asked for its place (:meth:`~robot_sm.statemachine.base_state.BaseState.on_pause`), the
run is suspended, not ended, and the state is left (it stops what it commanded). Continue
creates the state of the role the activity continues at (:data:`~robot_sm.statemachine.cycle.
RESUME_ROLE`) with what its transition carried and the place, and the same run goes on.

- The e-stop wins over pause: it interrupts Paused, and its release leads back to Paused, not
  Idle; the restart interlock still holds (the mux is STOPPED until an operator selects a mode
  or continues). Teleoperation while paused is allowed; its end leads back to Paused, and
  continue from Teleoperation hands the robot back to the activity.
- A state that cannot pause (``PAUSABLE`` false) is stopped instead, and the answer says so.
- The running or paused activity is handed to ``keep`` (a :class:`~robot_sm.statemachine.
  resumable.Resumable`, None when none is) whenever its place changes, for the state interface
  to keep across a restart; :meth:`Pausing.restore` takes it back: the machine boots to Paused.
"""

import threading
import time
from typing import Any, Callable, Dict, Optional

from robot_sm.contract import Activity, Answer, Outcome
from robot_sm.statemachine.activity import ActivityRuns, Run
from robot_sm.statemachine.base_state import BaseState
from robot_sm.statemachine.cycle import Handover, Interrupt, PRIORITY, RESUME_ROLE, Role
from robot_sm.statemachine.resumable import Resumable

#: What a run ends with when a stop or ``max_pause`` ends it while it is paused.
PAUSED_ENDS = {'stopped': Outcome.CANCELED, 'abandoned': Outcome.CANCELED}
#: The roles whose end leads back to Paused while an activity is paused (instead of Idle).
BACK_TO_PAUSED = frozenset({Role.BOOT, Role.EMERGENCY_STOP, Role.TELEOPERATION})


class Pausing:
    """The pause and continue of :class:`~robot_sm.statemachine.machine.StateMachine`."""

    state: Optional[BaseState]
    runs: ActivityRuns
    _lock: threading.RLock
    _factory: Any
    _pending_interrupt: Optional[Interrupt]
    _run: Callable[..., bool]
    transition_to: Callable[[BaseState], bool]

    def _init_pausing(self, keep: Callable[[Optional[Resumable]], None],
                      wall: Callable[[], float] = time.time) -> None:
        #: The paused activity and its place; None while nothing is paused.
        self.paused: Optional[Resumable] = None
        self._keep = keep
        self._wall = wall

    # -- the commands -----------------------------------------------------------------------

    def pause(self) -> Answer:
        """Pause the running activity; refused when none runs (or it is teleoperation)."""
        with self._lock:
            state, run = self.state, self.runs.current
            name = state.name if state is not None else 'no state yet'
            if state is None or run is None or state.role not in RESUME_ROLE:
                what = 'teleoperation cannot be paused' if run is not None and \
                    run.activity is Activity.TELEOPERATION else 'no activity runs'
                return Answer(False, f'Nothing to pause: {what} ({name})')
            if self._pending_interrupt is not None or not state.running:
                return Answer(False, f'{name} is handling an interrupt: try again')
            if not type(state).PAUSABLE:
                stopped = state.stop_activity(f'{name} cannot pause: the activity was stopped '
                                              'instead')
                return Answer(stopped.success, stopped.message)
            place: Dict[str, Any] = {}
            if not self._run(state, lambda: place.update(state.on_pause() or {}), 'on_pause'):
                return Answer(False, f'{name} failed to pause (see the log); now Idle')
            resumable = self._resumable_of(state, run, place, paused=True)
            paused_state = self._paused_state(resumable)
            self.runs.suspend()
            if not self.transition_to(paused_state):
                self.runs.resume()
                return Answer(False, f'{name} could not be paused')
            self._pending_interrupt = Interrupt.PAUSE
            state.interrupted = Interrupt.PAUSE
            self.paused = resumable
            self._keep(resumable)
            return Answer(True, f'{resumable.describe()} paused in {name}')

    def resume(self) -> Answer:
        """Continue the paused activity where it was (from Paused, or from teleoperation)."""
        with self._lock:
            paused, state = self.paused, self.state
            name = state.name if state is not None else 'no state yet'
            if paused is None:
                return Answer(False, f'Nothing is paused ({name})')
            pending = self._pending_interrupt
            if state is None or state.role not in (Role.PAUSED, Role.TELEOPERATION) or (
                    pending is not None and PRIORITY[pending] > PRIORITY[Interrupt.PAUSE]):
                return Answer(False, f'{name}: the paused {paused.describe()} continues from '
                                     'Paused (release the e-stop first)')
            following = self._factory.create(paused.role, paused.handover)
            following.resumed = dict(paused.place)
            if not self._run(following, lambda: following.on_resume(dict(paused.place)),
                             'on_resume') or not self.transition_to(following):
                return Answer(False, f'{paused.describe()} could not continue (see the log)')
            self._pending_interrupt = Interrupt.PAUSE
            teleoperation = state.role is Role.TELEOPERATION
            if teleoperation:
                self.runs.end(Outcome.SUCCEEDED, 'teleoperation handed back to the paused '
                              'activity', following.name)
            self.runs.resume()
            self.paused = None
            self._keep(self._resumable_of(following, self.runs.current, {}, paused=False))
            handed = ' (teleoperation handed back to it)' if teleoperation else ''
            return Answer(True, f'{paused.describe()} continues from {paused.state}{handed}')

    def restore(self, resumable: Resumable) -> None:
        """Take an activity kept across a restart: the machine boots to Paused with it."""
        with self._lock:
            self.paused = resumable
            self.runs.restore(resumable.activity, resumable.name)

    # -- what the machine asks --------------------------------------------------------------

    def back_to_paused(self, leaving: Role, target: Role) -> Role:
        """Return where the cycle leads from ``leaving``: Paused instead of Idle if paused."""
        if self.paused is not None and target is Role.IDLE and leaving in BACK_TO_PAUSED:
            return Role.PAUSED
        return target

    def prepared(self, state: BaseState) -> BaseState:
        """Give a Paused state the paused activity; return ``state``."""
        if state.role is Role.PAUSED and self.paused is not None:
            setattr(state, 'paused', self.paused)
        return state

    def paused_ended(self, outcome: str, text: str, state: str) -> None:
        """End the paused activity: its Paused state ended with ``outcome``."""
        self.runs.end_paused(PAUSED_ENDS.get(outcome, Outcome.CANCELED), text, state)
        self.paused = None
        self._keep(None)

    def keep_running(self, state: BaseState) -> None:
        """Keep the place of the running activity (a state of it was entered)."""
        run = self.runs.current
        if run is not None and state.role in RESUME_ROLE:
            self._keep(self._resumable_of(state, run, {}, paused=False))

    def _paused_state(self, resumable: Resumable) -> BaseState:
        state = self._factory.create(Role.PAUSED, Handover())
        setattr(state, 'paused', resumable)
        return state

    def _resumable_of(self, state: BaseState, run: Optional[Run], place: Dict[str, Any],
                      paused: bool) -> Resumable:
        """Return where the activity of ``run`` continues when it is in ``state``."""
        role = RESUME_ROLE.get(state.role, state.role)
        handover = state.handover
        goal = None if role is Role.WAYPOINT_FOLLOWING else handover.goal
        activity = run.activity if run is not None else Activity.NONE
        name = run.name if run is not None else ''
        return Resumable(activity, name, role, state.name, goal, handover.unreachable_rounds,
                         place, paused, self._wall())
