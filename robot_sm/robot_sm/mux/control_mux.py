"""
Who may move the base, and what the base is told: the robot control mux's decisions.

:class:`ControlMux` holds the operation mode (STOPPED, AUTONOMOUS, TELEOPERATION), a latched
emergency stop orthogonal to it, the teleoperation idle timer and the watchdogs of the operator
heartbeat and of the supervisor (the state interface's heartbeat). It is fed the inputs
(velocity commands, lock values, joystick messages, heartbeats, requests) with the time they
arrived, and answers what the base must be told. Rules:

- Output: zero while the e-stop is engaged or in STOPPED; in AUTONOMOUS and TELEOPERATION the
  newest command of the input of the mode's class that drives (:mod:`robot_sm.mux.selection`:
  the highest priority whose command counts, unless a lock masks it). A command counts if it is
  not older than its input's ``timeout`` and arrived after the current mode was entered (a mode
  change, a takeover, a fallback and a release all start afresh).
- Start: STOPPED, with the e-stop engaged if it was latched when the mux last stopped. No input
  takes over until an operator has selected a mode (any valid ``set_operation_mode`` request,
  STOPPED included); a teleoperation stream already running then counts as one that ran through
  an e-stop (below).
- Takeover: a non-zero command of an input that takes over (or joystick activity) switches to
  TELEOPERATION from AUTONOMOUS or STOPPED, unless locks mask it (the joystick: unless they mask
  every teleoperation input). In TELEOPERATION a non-zero command of any unmasked teleoperation
  input restarts the idle timer; zero commands do not. ``teleoperation_idle_timer`` after the
  last one the mode falls back to STOPPED, or with ``teleop_timeout_mode: previous`` to the mode
  before the takeover. Selecting TELEOPERATION by request starts the same timer.
- Operator heartbeat (:mod:`robot_sm.mux.operator_heartbeat`): armed at the first beat heard.
  Before it, every mode selection is refused and the mode stays STOPPED; from it on, silence for
  ``heartbeat_timeout`` engages the e-stop (:attr:`ControlMux.operator_present`).
- E-stop: engaged by request, or by the silence of the operator heartbeat. While engaged the
  output is zero, inputs change nothing and mode changes are refused; no lock and no mode
  request releases it. Only an explicit release does (refused while the heartbeat is silent),
  and the mode is then STOPPED: a mode must be selected and a fresh command sent. A
  teleoperation stream that ran through it neither takes over nor drives until it goes to zero
  or pauses for its timeout.
- Supervisor: once heard, its silence for ``supervisor_timeout`` switches AUTONOMOUS to STOPPED,
  and AUTONOMOUS is refused (also as the fallback of teleoperation) until it is heard again.
  TELEOPERATION stays available: an operator must be able to drive a robot whose supervisor died.
  ``supervised`` (the suite launched together): AUTONOMOUS is refused until it is first heard.
- Sanitising: commands with NaN or infinity are dropped and counted; they never take over.
  Others are scaled down to ``max_linear_velocity`` and ``max_angular_velocity`` (0: no limit)
  keeping their direction; a finite command too large to be scaled is dropped the same way.

Every event method returns the velocity to publish at once (the input that drives delivered a
command, or the mode, the e-stop or a lock changed what drives), or None when nothing needs
publishing before the next :meth:`ControlMux.tick`.
"""

import math
from typing import Dict, Optional, Sequence

from robot_sm.mux import refusals
from robot_sm.mux.config import all_inputs, MuxConfig
from robot_sm.mux.diagnosis import mux_status
from robot_sm.mux.idle_fallback import IdleFallback
from robot_sm.mux.input_statistics import InputStatistics
from robot_sm.mux.inputs import HEARTBEAT, JOYSTICK, NO_INPUT, SUPERVISOR
from robot_sm.mux.joystick import JoystickActivity
from robot_sm.mux.operator_heartbeat import OperatorHeartbeat
from robot_sm.mux.selection import Command, InputState, Selection
from robot_sm.mux.status import Answer, Mode, MuxState, MuxStatus
from robot_sm.mux.velocity import Velocity, ZERO
from robot_sm.mux.watchdog import Watchdog


class ControlMux:
    """The mux's state and rules; see the module documentation."""

    def __init__(self, config: MuxConfig, now: float, emergency_stop_reason: str = '') -> None:
        """
        Start in STOPPED, waiting for an operator to select a mode.

        A non-empty ``emergency_stop_reason`` starts with the e-stop engaged for that reason (a
        latch that survived a restart). The operator's and the supervisor's heartbeat
        watchdogs arm at their first heartbeat.
        """
        self.config = config
        self.mode = Mode.STOPPED
        self.emergency_stop = bool(emergency_stop_reason)
        self.emergency_stop_reason = emergency_stop_reason
        #: Why the mode or e-stop last changed, for the log.
        self.reason = (f'started with the emergency stop engaged: {emergency_stop_reason}'
                       if emergency_stop_reason else 'started')
        #: False until an operator selects a mode: until then no input takes over.
        self.operator_selected = False
        #: True while the supervisor is silent (once heard, or ``supervised``): no AUTONOMOUS.
        self.supervisor_lost = config.supervised
        #: Whether the operator heartbeat is heard: False until it arrives and once it falls
        #: silent for ``heartbeat_timeout``; None without a heartbeat watchdog.
        self.operator_present: Optional[bool] = (
            None if config.heartbeat_timeout is None else False)
        self._idle = IdleFallback(config.teleoperation_idle_timer,
                                  config.teleop_timeout_mode == 'previous')
        self._epoch = 0
        #: The velocity inputs and locks, and which input drives.
        self.selection = Selection(all_inputs(config), config.locks)
        #: The input that drove at the last event or tick; None: nothing drives.
        self._selected: Optional[InputState] = None
        self._joystick = JoystickActivity(config.joystick_axis_threshold)
        #: The operator heartbeat's watchdog; None without one.
        self.operator_heartbeat = (None if config.heartbeat_timeout is None else
                                   OperatorHeartbeat(config.heartbeat_timeout,
                                                     config.heartbeat_topic))
        self.supervisor = Watchdog(config.supervisor_timeout)  # armed: heard since the start
        #: Statistics of every input: velocity inputs, locks, joystick, heartbeats.
        self.inputs: Dict[str, InputStatistics] = self.selection.statistics()
        if config.joystick_used:
            self.inputs[JOYSTICK] = InputStatistics()
        if config.heartbeat_timeout is not None:
            self.inputs[HEARTBEAT] = InputStatistics()
        self.inputs[SUPERVISOR] = InputStatistics()

    # State ------------------------------------------------------------------------------------

    @property
    def state(self) -> MuxState:
        """Return the mode and e-stop, as published on ``robot_sm/operation_mode``."""
        return MuxState(self.mode, self.emergency_stop)

    @property
    def active_source(self) -> str:
        """Return the name of the input that drove at the last event or tick, or ``none``."""
        selected = self._selected
        return NO_INPUT if selected is None else selected.spec.name

    @property
    def dropped(self) -> int:
        """Return how many messages were dropped on all inputs since the start."""
        return sum(stats.dropped for stats in self.inputs.values())

    def output(self, now: float) -> Velocity:
        """Return what the base must be told at ``now``."""
        selected = self.select(now)
        command = None if selected is None else selected.command
        return ZERO if command is None else command.velocity

    # Inputs -----------------------------------------------------------------------------------

    def command(self, source: str, velocity: Velocity, now: float) -> Optional[Velocity]:
        """
        Take a command from the velocity input ``source``; return the velocity to publish now.

        None when nothing needs publishing before the next tick. A non-zero command of an input
        that takes over switches to its mode (see the rules).
        """
        state = self.selection.inputs[source]
        stats = state.stats
        config = self.config
        limited = (velocity.limited(config.max_linear_velocity, config.max_angular_velocity)
                   if velocity.is_finite() else None)
        if limited is None:  # non-finite, or too large to be scaled
            stats.drop(now)
            return None
        gap = stats.age(now)
        stats.record(now)
        changed = self._run_timers(now)
        if state.spec.mode is Mode.TELEOPERATION and self._teleoperate(
                state, not velocity.is_zero(), gap, now):
            changed = True
        state.command = Command(limited, now, self._epoch)
        if self.select(now) is state:
            return limited
        return self.output(now) if changed else None

    def lock(self, name: str, locked: bool, now: float) -> Optional[Velocity]:
        """Take a message of the lock ``name``; return the output if what drives changed."""
        state = self.selection.locks[name]
        before = self.select(now)
        state.stats.record(now)
        state.data = locked
        changed = self._run_timers(now)
        return self.output(now) if changed or self.select(now) is not before else None

    def joystick(self, axes: Sequence[float], buttons: Sequence[int],
                 now: float) -> Optional[Velocity]:
        """Take a joystick message; operator activity on it takes over control."""
        stats = self.inputs[JOYSTICK]
        if not all(map(math.isfinite, axes)):
            stats.drop(now)
            return None
        stats.record(now)
        changed = self._run_timers(now)
        if (self._joystick.update(axes, buttons) and self._may_take_over()
                and not self.selection.all_masked(Mode.TELEOPERATION, now)):
            self.selection.arm(Mode.TELEOPERATION, True)
            if self.mode is not Mode.TELEOPERATION:
                self._enter(Mode.TELEOPERATION, 'joystick took over')
                changed = True
            self._idle.activity(now)
        return self.output(now) if changed else None

    def heartbeat(self, engage: bool, now: float) -> Optional[Velocity]:
        """Take a heartbeat; ``engage`` true also engages the e-stop."""
        self.inputs[HEARTBEAT].record(now)
        changed = self._run_timers(now)
        if self.operator_heartbeat is not None:
            self.operator_heartbeat.beat(now)
            self.operator_present = True
        if engage and not self.emergency_stop:
            self._engage('heartbeat message asked for it')
            changed = True
        return self.output(now) if changed else None

    def supervisor_heartbeat(self, now: float) -> Optional[Velocity]:
        """Take the supervisor's heartbeat: it arms the watchdog, and ends a supervisor loss."""
        self.inputs[SUPERVISOR].record(now)
        changed = self._run_timers(now)
        self.supervisor.beat(now)
        self.supervisor_lost = False
        return self.output(now) if changed else None

    def tick(self, now: float) -> Velocity:
        """Run the timers (teleoperation idle, watchdogs); return the output."""
        self._run_timers(now)
        return self.output(now)

    # Requests ---------------------------------------------------------------------------------

    def engage(self, reason: str, now: float) -> Answer:
        """Engage the latched e-stop."""
        self._run_timers(now)
        if self.emergency_stop:
            return Answer(True, f'emergency stop already engaged ({self.emergency_stop_reason})')
        self._engage(reason)
        return Answer(True, 'emergency stop engaged: output is zero until it is released')

    def release(self, now: float) -> Answer:
        """Release the e-stop; the mode becomes STOPPED."""
        self._run_timers(now)
        if not self.emergency_stop:
            return Answer(True, 'emergency stop was not engaged; nothing changed')
        silent = self.operator_heartbeat and self.operator_heartbeat.silent_for(now)
        if silent:
            return Answer(False, silent + ': the emergency stop stays engaged')
        self.emergency_stop = False
        self.emergency_stop_reason = ''
        self._enter(Mode.STOPPED, 'emergency stop released')
        self.selection.arm(Mode.TELEOPERATION, False)
        return Answer(True, 'emergency stop released; mode is STOPPED: select a mode and send '
                            'a fresh command to move')

    def set_mode(self, mode: int, now: float) -> Answer:
        """
        Select a mode; refused while the e-stop is engaged or for an unknown value.

        Every mode is refused until the operator heartbeat (if watched) is first heard, and
        AUTONOMOUS while the supervisor is lost. The first mode selected after the start lets
        inputs take over from then on.
        """
        self._run_timers(now)
        if mode not in Mode._value2member_map_:
            return Answer(False, refusals.unknown_mode(mode) + '; nothing changed')
        if self.emergency_stop:
            return Answer(False, refusals.ENGAGED)
        new = Mode(mode)
        refusal = self._refusal(new, now)
        if refusal:
            return Answer(False, refusal)
        self._operator_selects(new)
        if new is self.mode:
            return Answer(True, f'mode is already {new.name}; nothing changed')
        old = self.mode
        self._enter(new, f'{new.name} requested')
        if new is Mode.TELEOPERATION:
            self.selection.arm(Mode.TELEOPERATION, True)
            self._idle.activity(now)
        return Answer(True, f'mode {new.name} (was {old.name})')

    def set_operation_mode(self, mode: int, emergency_stop: bool, now: float) -> Answer:
        """
        Carry out a ``robot_sm/set_operation_mode`` request.

        ``emergency_stop`` true engages the e-stop together with the requested mode (stopping
        never waits for a valid request: with an unknown mode the e-stop is engaged anyway and
        the answer is a failure naming the mode); while engaged, a request for another mode is
        refused. ``emergency_stop`` false selects the mode; it never releases an engaged e-stop
        (ISO 13850 asks for a deliberate reset, and a default-valued field is not one): the
        request is refused with a message naming the release service.
        """
        self._run_timers(now)
        valid = mode in Mode._value2member_map_
        if self.emergency_stop:
            if emergency_stop and valid and mode == self.mode:
                return Answer(True, 'emergency stop already engaged; nothing changed')
            if valid and not emergency_stop:
                return Answer(False, refusals.NOT_A_RELEASE)
            return self.set_mode(mode, now)  # refused: an unknown mode, or another mode
        if not emergency_stop:
            return self.set_mode(mode, now)
        self._engage('set_operation_mode request')
        if not valid:
            return Answer(False, refusals.unknown_mode(mode) + '; the emergency stop was engaged '
                                                               'anyway and the mode is unchanged')
        new = Mode(mode)
        refusal = self._refusal(new, now)
        if refusal and new is not self.mode:
            return Answer(False, 'emergency stop engaged; ' + refusal)
        if not refusal:  # engaging in the mode it is in selects nothing
            self._operator_selects(new)
        if new is not self.mode:
            self._enter(new, 'set_operation_mode request with emergency stop')
        return Answer(True, f'emergency stop engaged; mode {self.mode.name}')

    # Diagnostics ------------------------------------------------------------------------------

    def status(self, now: float) -> MuxStatus:
        """Return the diagnostics at ``now``: level, summary, state and per-input figures."""
        return mux_status(self, now)

    # Internals --------------------------------------------------------------------------------

    def select(self, now: float) -> Optional[InputState]:
        """Return the input that drives at ``now`` (see the rules), and remember it."""
        selected = (None if self.emergency_stop
                    else self.selection.select(self.mode, self._epoch, now))
        self._selected = selected
        return selected

    def _may_take_over(self) -> bool:
        """Return True if an input may take over control now."""
        return self.operator_selected and not self.emergency_stop

    def _teleoperate(self, state: InputState, moving: bool, gap: Optional[float],
                     now: float) -> bool:
        """
        Let a command of a teleoperation input take over or keep teleoperation alive.

        Return True if the mode changed. A stream that ran through an e-stop (or a restart) is
        disarmed until it stops moving or pauses for its input's timeout (``gap``: seconds since
        its previous message). Masked inputs neither take over nor keep teleoperation alive.
        """
        spec = state.spec
        if not state.armed and (not moving or gap is None or gap > spec.timeout):
            state.armed = True
        if not (moving and state.armed and self._may_take_over()) \
                or self.selection.masked(spec, now):
            return False
        changed = False
        if self.mode is not Mode.TELEOPERATION:
            if not spec.takes_over:
                return False
            self._enter(Mode.TELEOPERATION, f'{spec.name} command took over')
            changed = True
        self._idle.activity(now)
        return changed

    def _operator_selects(self, mode: Mode) -> None:
        """
        Note that an operator selected ``mode``; the first selection opens takeover.

        A teleoperation stream already running must then go to zero or pause first, as after
        an e-stop (unless the operator selected TELEOPERATION itself).
        """
        if not self.operator_selected:
            self.operator_selected = True
            if mode is not Mode.TELEOPERATION:
                self.selection.arm(Mode.TELEOPERATION, False)

    def supervisor_refusal(self, now: float) -> str:
        """Say why AUTONOMOUS is refused while the supervisor is silent."""
        return refusals.supervisor_silent(self.supervisor, now)

    def _refusal(self, new: Mode, now: float) -> str:
        """Return why selecting ``new`` is refused now, the e-stop aside; '' if it is not."""
        if self.operator_heartbeat is not None and not self.operator_heartbeat.heard:
            return self.operator_heartbeat.not_heard()
        if new is Mode.AUTONOMOUS and self.supervisor_lost:
            return self.supervisor_refusal(now)
        return ''

    def _enter(self, mode: Mode, reason: str) -> None:
        self._idle.entering(self.mode, mode)
        self.mode = mode
        self._epoch += 1
        self.reason = reason

    def _engage(self, reason: str) -> None:
        self.emergency_stop = True
        self.emergency_stop_reason = reason
        self._idle.cancel()
        self.reason = f'emergency stop engaged: {reason}'

    def _run_timers(self, now: float) -> bool:
        changed = False
        heartbeat = self.operator_heartbeat
        if heartbeat is not None and heartbeat.silent(now):
            self.operator_present = False
            if not self.emergency_stop:
                self._engage(f'heartbeat silent for more than {heartbeat.timeout:g} s')
                changed = True
        if not self.supervisor_lost and self.supervisor.silent(now):
            self.supervisor_lost = True
            self._idle.supervisor_lost()
            if self.mode is Mode.AUTONOMOUS:
                self._enter(Mode.STOPPED, 'supervisor silent for more than '
                                          f'{self.supervisor.timeout:g} s')
                changed = True
        fallback = self._idle.due(now)
        if fallback is not None:
            self._enter(fallback, f'teleoperation idle for {self._idle.idle:g} s')
            changed = True
        return changed
