"""
Who may move the base, and what the base is told: the robot control mux's decisions.

:class:`ControlMux` holds the operation mode (STOPPED, AUTONOMOUS, TELEOPERATION), a latched
emergency stop orthogonal to it, the teleoperation idle timer and the heartbeat watchdog. It is
fed the inputs (autonomy and teleoperation commands, joystick messages, heartbeats, requests)
with the time they arrived, and answers what the base must be told. It also watches the
supervisor (the state interface's heartbeat).

Rules:

- Output: zero while the e-stop is engaged or in STOPPED; in AUTONOMOUS the newest autonomy
  command, in TELEOPERATION the newest teleoperation command. A command counts only if it arrived
  after the current mode was entered (a mode change, a takeover, a fallback and a release all
  start afresh: nothing held from before moves the robot) and if it is fresh: an autonomy command
  older than ``autonomy_timeout`` is replaced by zero.
- Start: STOPPED, with the e-stop engaged if it was latched when the mux last stopped (the node
  keeps the latch on disk). No input takes over until an operator has selected a mode (any
  valid ``set_operation_mode`` request, STOPPED included); a teleoperation stream already
  running then is treated like one that ran through an e-stop (see below).
- Takeover: a non-zero teleoperation command, or operator activity on the joystick, switches to
  TELEOPERATION from AUTONOMOUS or STOPPED. Only those restart the idle timer; zero commands do
  not. ``teleoperation_idle_timer`` after the last one the mode falls back to STOPPED, or to the
  mode before the takeover when ``teleop_timeout_mode`` is ``previous``. Selecting TELEOPERATION
  by request starts the same timer, so a forgotten teleoperation mode does not last forever.
- E-stop: engaged by request, or by the heartbeat watchdog when the heartbeat is silent for
  ``heartbeat_timeout`` (:attr:`ControlMux.operator_present` tells whether it is heard). While
  engaged, the output is zero, inputs are recorded but change nothing, and mode changes are
  refused. Only an explicit release clears it (refused while the
  heartbeat is still silent), and the mode is then STOPPED. Release never resumes motion: a mode
  must be selected and a fresh command sent. A teleoperation stream that kept running through the
  e-stop does not take over either: it must first go to zero (or pause for the idle time). A mode
  request never releases the e-stop: with ``emergency_stop`` false it is refused while engaged.
- Supervisor: once the supervisor's heartbeat has been heard, its silence for longer than
  ``supervisor_timeout`` switches AUTONOMOUS to STOPPED, and AUTONOMOUS is refused (also as the
  fallback of teleoperation) until the heartbeat is heard again. TELEOPERATION stays available:
  a human is in the loop, and an operator must be able to drive a robot whose supervisor died.
- Sanitising: commands with NaN or infinity are dropped and counted; they never take over
  control. Accepted commands are scaled down to ``max_linear_velocity`` and
  ``max_angular_velocity`` (0 means no limit), keeping their direction; a finite command too
  large to be scaled (a vector length beyond the float range) is dropped the same way.

Every event method returns the velocity to publish at once (the active source delivered a
command, or the mode or e-stop changed), or None when nothing needs publishing before the next
:meth:`ControlMux.tick`.
"""

import math
from typing import Dict, NamedTuple, Optional, Sequence

from robot_sm.mux.config import (
    HEARTBEAT, JOYSTICK, MuxConfig, SUPERVISOR, velocity_inputs, VelocityInput)
from robot_sm.mux.input_statistics import InputStatistics
from robot_sm.mux.joystick import JoystickActivity
from robot_sm.mux.status import Answer, InputReport, Level, Mode, MuxState, MuxStatus
from robot_sm.mux.velocity import Velocity, ZERO
from robot_sm.mux.watchdog import Watchdog

#: The service that releases the e-stop, named in refusals.
RELEASE_SERVICE = 'robot_sm/emergency_stop'

_MODE_NAMES = ', '.join(f'{mode.value} ({mode.name})' for mode in Mode)


class _Command(NamedTuple):
    velocity: Velocity  # already limited
    time: float
    epoch: int  # the mode epoch it arrived in


class ControlMux:
    """The mux's state and rules; see the module documentation."""

    def __init__(self, config: MuxConfig, now: float, emergency_stop_reason: str = '') -> None:
        """
        Start in STOPPED, waiting for an operator to select a mode.

        A non-empty ``emergency_stop_reason`` starts with the e-stop engaged for that reason (a
        latch that survived a restart). The heartbeat watchdog starts at ``now``; the
        supervisor's arms at its first heartbeat.
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
        #: True while the supervisor, once heard, is silent: AUTONOMOUS is refused.
        self.supervisor_lost = False
        #: Whether the operator heartbeat is heard: False until it arrives and once it falls
        #: silent for ``heartbeat_timeout``; None without a heartbeat watchdog.
        self.operator_present: Optional[bool] = (
            None if config.heartbeat_timeout is None else False)
        self._previous_mode = Mode.STOPPED
        self._teleop_deadline: Optional[float] = None
        self._teleop_armed = True
        self._epoch = 0
        #: The velocity inputs by name, and by the mode they drive the base in.
        self.velocity_inputs = {source.name: source for source in velocity_inputs(config)}
        self._source_of = {source.mode: source for source in self.velocity_inputs.values()}
        self._commands: Dict[str, Optional[_Command]] = dict.fromkeys(self.velocity_inputs)
        self._joystick = JoystickActivity(config.joystick_axis_threshold)
        self._heartbeat = (None if config.heartbeat_timeout is None
                           else Watchdog(config.heartbeat_timeout, armed_at=now))
        self._supervisor = Watchdog(config.supervisor_timeout)
        self.inputs: Dict[str, InputStatistics] = {
            name: InputStatistics() for name in self.velocity_inputs}
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
        """Return the input that moves the base now: autonomy, teleoperation or none."""
        source = self._source_of.get(self.mode)
        return 'none' if self.emergency_stop or source is None else source.name

    @property
    def dropped(self) -> int:
        """Return how many messages were dropped on all inputs since the start."""
        return sum(stats.dropped for stats in self.inputs.values())

    def output(self, now: float) -> Velocity:
        """Return what the base must be told at ``now``."""
        command = self._active_command(now)
        return ZERO if command is None else command.velocity

    # Inputs -----------------------------------------------------------------------------------

    def command(self, source: str, velocity: Velocity, now: float) -> Optional[Velocity]:
        """
        Take a command from the velocity input ``source``; return the velocity to publish now.

        None when nothing needs publishing before the next tick. A non-zero command of an input
        that takes over switches to its mode (see the rules).
        """
        spec = self.velocity_inputs[source]
        stats = self.inputs[source]
        limited = self._sanitised(velocity)
        if limited is None:
            stats.drop(now)
            return None
        gap = stats.age(now)
        stats.record(now)
        changed = self._run_timers(now)
        if spec.takes_over and self._take_over(spec, not velocity.is_zero(), gap, now):
            changed = True
        self._commands[source] = _Command(limited, now, self._epoch)
        if self.mode is spec.mode and not self.emergency_stop:
            return limited
        return self.output(now) if changed else None

    def joystick(self, axes: Sequence[float], buttons: Sequence[int],
                 now: float) -> Optional[Velocity]:
        """Take a joystick message; operator activity on it takes over control."""
        stats = self.inputs[JOYSTICK]
        if not all(map(math.isfinite, axes)):
            stats.drop(now)
            return None
        stats.record(now)
        changed = self._run_timers(now)
        if self._joystick.update(axes, buttons) and self._may_take_over():
            self._teleop_armed = True
            if self.mode is not Mode.TELEOPERATION:
                self._enter(Mode.TELEOPERATION, 'joystick took over')
                changed = True
            self._teleop_deadline = now + self.config.teleoperation_idle_timer
        return self.output(now) if changed else None

    def heartbeat(self, engage: bool, now: float) -> Optional[Velocity]:
        """Take a heartbeat; ``engage`` true also engages the e-stop."""
        self.inputs[HEARTBEAT].record(now)
        changed = self._run_timers(now)
        if self._heartbeat is not None:
            self._heartbeat.beat(now)
            self.operator_present = True
        if engage and not self.emergency_stop:
            self._engage('heartbeat message asked for it')
            changed = True
        return self.output(now) if changed else None

    def supervisor_heartbeat(self, now: float) -> Optional[Velocity]:
        """Take the supervisor's heartbeat: it arms the watchdog, and ends a supervisor loss."""
        self.inputs[SUPERVISOR].record(now)
        changed = self._run_timers(now)
        self._supervisor.beat(now)
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
        heartbeat = self._heartbeat
        if heartbeat is not None and heartbeat.silent(now):
            return Answer(False, f'heartbeat silent for {heartbeat.silence(now):.2f} s '
                                 f'(timeout {heartbeat.timeout:g} s): the emergency stop stays '
                                 'engaged')
        self.emergency_stop = False
        self.emergency_stop_reason = ''
        self._enter(Mode.STOPPED, 'emergency stop released')
        self._teleop_armed = False
        return Answer(True, 'emergency stop released; mode is STOPPED: select a mode and send '
                            'a fresh command to move')

    def set_mode(self, mode: int, now: float) -> Answer:
        """
        Select a mode; refused while the e-stop is engaged or for an unknown value.

        AUTONOMOUS is refused while the supervisor is lost. The first mode selected after the
        start lets inputs take over from then on.
        """
        self._run_timers(now)
        if mode not in Mode._value2member_map_:
            return Answer(False, _unknown_mode(mode) + '; nothing changed')
        if self.emergency_stop:
            return Answer(False, 'emergency stop is engaged: mode changes are refused until it '
                                 f'is released with {RELEASE_SERVICE}')
        new = Mode(mode)
        if new is Mode.AUTONOMOUS and self.supervisor_lost:
            return Answer(False, self._supervisor_refusal(now))
        self._operator_selects(new)
        if new is self.mode:
            return Answer(True, f'mode is already {new.name}; nothing changed')
        old = self.mode
        self._enter(new, f'{new.name} requested')
        if new is Mode.TELEOPERATION:
            self._teleop_armed = True
            self._teleop_deadline = now + self.config.teleoperation_idle_timer
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
        if emergency_stop:
            if self.emergency_stop:
                if valid and mode == self.mode:
                    return Answer(True, 'emergency stop already engaged; nothing changed')
                if not valid:
                    return Answer(False, _unknown_mode(mode) + '; nothing changed')
                return Answer(False, 'emergency stop is engaged: mode changes are refused until '
                                     f'it is released with {RELEASE_SERVICE}')
            self._engage('set_operation_mode request')
            if not valid:
                return Answer(False, _unknown_mode(mode) + '; the emergency stop was engaged '
                                                           'anyway and the mode is unchanged')
            new = Mode(mode)
            if new is Mode.AUTONOMOUS and self.supervisor_lost:
                return Answer(False, 'emergency stop engaged; ' + self._supervisor_refusal(now))
            self._operator_selects(new)
            if new is not self.mode:
                self._enter(new, 'set_operation_mode request with emergency stop')
            return Answer(True, f'emergency stop engaged; mode {self.mode.name}')
        if not valid:
            return Answer(False, _unknown_mode(mode) + '; nothing changed')
        if self.emergency_stop:
            return Answer(False, 'emergency stop is engaged: a mode request does not release '
                                 f'it; release it with {RELEASE_SERVICE} (data: false), then '
                                 'select a mode')
        return self.set_mode(mode, now)

    # Diagnostics ------------------------------------------------------------------------------

    def status(self, now: float) -> MuxStatus:
        """Return the diagnostics at ``now``: level, summary, state and per-input figures."""
        inputs = tuple(
            InputReport(name, stats.age(now), stats.rate(now), stats.received, stats.dropped)
            for name, stats in self.inputs.items())
        source = self.active_source
        if self.emergency_stop:
            level, summary = Level.ERROR, f'emergency stop engaged: {self.emergency_stop_reason}'
        elif source != 'none' and self._active_command(now) is None:
            stats = self.inputs[source]
            age = stats.age(now)
            silent = 'no message yet' if age is None else f'newest message {age:.2f} s old'
            level, summary = Level.WARN, (f'{self.mode.name}: no fresh {source} command '
                                          f'({silent}); output is zero')
        elif source == 'none':
            level, summary = Level.OK, 'STOPPED: output is zero'
            if not self.operator_selected:
                summary += ('; no input takes over until an operator selects a mode '
                            '(robot_sm/set_operation_mode)')
        else:
            level, summary = Level.OK, f'{self.mode.name}: {source} commands are forwarded'
        if self.supervisor_lost:
            level = max(level, Level.WARN)
            summary += '; ' + self._supervisor_refusal(now)
        dropping = [name for name, stats in self.inputs.items() if stats.dropped_recently(now)]
        if dropping and level < Level.WARN:
            level = Level.WARN
        if dropping:
            summary += '; dropping non-finite or unscalable messages on ' + ', '.join(dropping)
        return MuxStatus(level, summary, self.mode, self.emergency_stop,
                         self.emergency_stop_reason, source, inputs)

    # Internals --------------------------------------------------------------------------------

    def _active_command(self, now: float) -> Optional[_Command]:
        """Return the active source's command if it counts at ``now`` (see the rules)."""
        source = self._source_of.get(self.mode)
        if self.emergency_stop or source is None:
            return None
        command = self._commands[source.name]
        if command is None or command.epoch != self._epoch or now - command.time > source.timeout:
            return None
        return command

    def _sanitised(self, velocity: Velocity) -> Optional[Velocity]:
        """Return ``velocity`` within the limits, or None if it must be dropped."""
        if not velocity.is_finite():
            return None
        return velocity.limited(self.config.max_linear_velocity,
                                self.config.max_angular_velocity)

    def _may_take_over(self) -> bool:
        """Return True if an input may take over control now."""
        return self.operator_selected and not self.emergency_stop

    def _take_over(self, source: VelocityInput, moving: bool, gap: Optional[float],
                   now: float) -> bool:
        """
        Let a command of ``source`` take over if it is moving; return True if the mode changed.

        A stream that ran through an e-stop (or a restart) is disarmed until it stops moving or
        pauses for ``source.timeout`` (``gap``: seconds since its previous message).
        """
        if not self._teleop_armed and (not moving or gap is None or gap > source.timeout):
            self._teleop_armed = True
        if not (moving and self._teleop_armed and self._may_take_over()):
            return False
        changed = self.mode is not source.mode
        if changed:
            self._enter(source.mode, f'{source.name} command took over')
        self._teleop_deadline = now + source.timeout
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
                self._teleop_armed = False

    def _supervisor_refusal(self, now: float) -> str:
        silence = self._supervisor.silence(now) or 0.0
        return (f'the supervisor has been silent for {silence:.2f} s (supervisor_timeout '
                f'{self._supervisor.timeout:g} s): AUTONOMOUS is refused until it is heard '
                'again; TELEOPERATION and STOPPED can be selected')

    def _enter(self, mode: Mode, reason: str) -> None:
        if mode is Mode.TELEOPERATION:
            if self.mode is not Mode.TELEOPERATION:
                self._previous_mode = self.mode
        else:
            self._teleop_deadline = None
        self.mode = mode
        self._epoch += 1
        self.reason = reason

    def _engage(self, reason: str) -> None:
        self.emergency_stop = True
        self.emergency_stop_reason = reason
        self._teleop_deadline = None
        self.reason = f'emergency stop engaged: {reason}'

    def _run_timers(self, now: float) -> bool:
        changed = False
        heartbeat = self._heartbeat
        if heartbeat is not None and heartbeat.silent(now):
            self.operator_present = False
            if not self.emergency_stop:
                self._engage(f'heartbeat silent for more than {heartbeat.timeout:g} s')
                changed = True
        if not self.supervisor_lost and self._supervisor.silent(now):
            self.supervisor_lost = True
            if self._previous_mode is Mode.AUTONOMOUS:
                self._previous_mode = Mode.STOPPED
            if self.mode is Mode.AUTONOMOUS:
                self._enter(Mode.STOPPED, 'supervisor silent for more than '
                                          f'{self._supervisor.timeout:g} s')
                changed = True
        deadline = self._teleop_deadline
        if deadline is not None and now >= deadline:
            self._teleop_deadline = None
            fallback = (self._previous_mode if self.config.teleop_timeout_mode == 'previous'
                        else Mode.STOPPED)
            idle = self.config.teleoperation_idle_timer
            self._enter(fallback, f'teleoperation idle for {idle:g} s')
            changed = True
        return changed


def _unknown_mode(mode: int) -> str:
    return f'unknown mode {mode}: operation_mode.mode must be one of {_MODE_NAMES}'
