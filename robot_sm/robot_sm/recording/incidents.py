"""
When the robot stopped unexpectedly, and why: the incident recorder's detection, without ROS.

:class:`IncidentDetector` is fed what the suite publishes, each with the time it arrived (s), and
opens an incident for:

- ``emergency_stop``: the mux's e-stop engaged, for any cause (``robot_sm/emergency_stop_cause``,
  the mux's own reason text: an operator's STOP, heartbeat silence, a request). An e-stop found
  latched when the mux started is one too (its reason starts with :data:`LATCHED_AT_START`),
  also when the recorder joins later, unless it is the cause of the newest incident kept (the
  recorder restarted: it was recorded then);
- ``activity_failed``: ``robot_sm/state`` reports a new ``last_activity_id`` whose outcome is
  FAILED (a plugin state that raised, a goal that failed), with the suite's ``last_outcome_text``;
- ``operator_lost``: ``robot_sm/operator_present`` turned false (the operator heartbeat fell
  silent);
- ``supervisor_silent``: the mux left AUTONOMOUS for STOPPED (e-stop released) while the
  supervisor heartbeat had not been heard for :data:`SUPERVISOR_SILENCE`;
- ``stale_input``: the input that drove stopped driving (``robot_sm/selected_input`` turned
  ``none``) while the mux stayed in a driving mode with the e-stop released and odometry showed the
  robot moving: the mux zeroed the base because the input's commands went stale (or a lock masked
  it). It is confirmed :data:`STALE_SETTLE` after it, when no mode change or e-stop explains it
  (the mux announces those just after the zero);
- ``teleop_stopped``: the teleop execution state turned STOPPED from RUNNING or PAUSED (the kill
  input, a controller lost, or the e-stop);
- ``snapshot``: an operator asked for one (:meth:`IncidentDetector.snapshot`).

The first message of each topic only tells the detector where things stand (it joined then): it
opens nothing, except for an e-stop latched at start. An incident stays open for
``after_seconds``; what is detected meanwhile joins it (``also``) instead of opening another,
and an e-stop that comes within :data:`PROMOTE_WITHIN` becomes its cause. :meth:`tick` closes
the incidents that are due, with the stop's figures (:mod:`.figures`) and the operator involved
from the audit log.
"""

from collections import deque
from dataclasses import dataclass, field, replace
from typing import Deque, List, Optional, Tuple

from robot_sm.contract import Mode, Outcome
from robot_sm.parameters import duration, Param, Settings
from robot_sm.recording.figures import (
    at_rest, CommandSample, OdometrySample, stop_figures, StopFigures)

RECORDER_PARAMETERS = [
    duration('buffer_seconds', 30.0, 'Seconds of the topics kept in memory, written before the '
             'trigger of an incident', 1.0, 600.0),
    Param('buffer_mib', 64.0, 'Memory budget of the ring buffer (MiB); when the window does '
          'not fit, the oldest messages go first', minimum=1.0, maximum=65536.0),
    duration('after_seconds', 5.0, 'Seconds after the trigger written with an incident',
             0.0, 120.0),
    Param('disk_budget_mib', 1024.0, 'Disk budget of the incidents kept (MiB); past it the '
          'oldest are deleted, and the log says which', minimum=1.0, maximum=1e7),
    Param('rest_speed', 0.02, 'Below this speed (m/s) the robot counts as at rest',
          minimum=0.0, exclusive_minimum=True, maximum=10.0),
    Param('rest_turn_rate', 0.05, 'Below this turn rate (rad/s) the robot counts as at rest',
          minimum=0.0, exclusive_minimum=True, maximum=10.0),
]

#: How the mux's reason begins for an e-stop found latched when it started.
LATCHED_AT_START = 'started with the emergency stop engaged'
#: Seconds a stale input's zero waits for a mode change or e-stop that would explain it.
STALE_SETTLE = 0.3
#: Seconds of supervisor heartbeat silence that make AUTONOMOUS -> STOPPED a supervisor's loss.
SUPERVISOR_SILENCE = 0.5
#: Seconds an event may have arrived before an incident's trigger and still join it: messages
#: are stamped when they arrived, and one taken after the trigger was not there to trigger first.
TAKEN_LATE = 1.0
#: Seconds after an incident opened within which an e-stop becomes its cause.
PROMOTE_WITHIN = 1.0
#: Audit entry kinds (robot_sm_msgs/AuditEntry).
AUDIT_STOP = 2

#: What each kind of incident is, in words.
KIND_LABELS = {
    'emergency_stop': 'e-stop engaged', 'activity_failed': 'state failed',
    'operator_lost': 'operator link lost', 'supervisor_silent': 'supervisor silent',
    'stale_input': 'stale input zeroed while moving', 'teleop_stopped': 'teleop fail-safe',
    'snapshot': 'manual snapshot',
}


@dataclass(frozen=True)
class RecorderSettings(Settings):
    """The incident recorder's settings, named like its parameters."""

    SPECS = RECORDER_PARAMETERS

    buffer_seconds: float = 30.0
    buffer_mib: float = 64.0
    after_seconds: float = 5.0
    disk_budget_mib: float = 1024.0
    rest_speed: float = 0.02
    rest_turn_rate: float = 0.05


@dataclass
class Incident:
    """An incident: what triggered it and when (s); closed with its figures and operator."""

    id: int  # noqa: A003 - the incident's number, as the record names it
    kind: str
    cause: str
    time: float
    due: float
    also: List[str] = field(default_factory=list)
    #: The state and mode when it happened.
    state: str = ''
    mode: str = ''
    figures: Optional[StopFigures] = None
    operator: str = ''
    #: How the operator was found, or why none is known.
    operator_note: str = ''


class IncidentDetector:
    """Incidents from the suite's topics; see the module."""

    def __init__(self, settings: RecorderSettings, first_id: int = 1,
                 known_latch_cause: str = '') -> None:
        self.settings = settings
        self.next_id = first_id
        self.open: List[Incident] = []
        self._known_latch_cause = known_latch_cause
        self._cause: Optional[str] = None
        self._activity_id: Optional[int] = None
        self._present: Optional[bool] = None
        self._mode: Optional[Tuple[int, bool]] = None
        self._selected: Optional[str] = None
        self._teleop: Optional[int] = None
        self._state = ''
        self._supervisor: Optional[float] = None
        self._stale: Optional[Tuple[float, str, float, Tuple[int, bool]]] = None
        self._odometry: Deque[OdometrySample] = deque()
        self._commands: Deque[CommandSample] = deque()
        self._audit: Deque[Tuple[float, int, str, str]] = deque()

    # What the suite publishes ---------------------------------------------------------------

    def emergency_stop_cause(self, cause: str, now: float) -> None:
        """Take the mux's e-stop reason ('' while released)."""
        previous, self._cause = self._cause, cause
        if not cause:
            return
        latched = cause.startswith(LATCHED_AT_START)
        if previous is None:
            if latched and cause != self._known_latch_cause:
                self._trigger('emergency_stop', cause, now)
        elif not previous or (latched and cause != previous):
            self._trigger('emergency_stop', cause, now)

    def state_report(self, name: str, last_activity_id: int, last_outcome: int, text: str,
                     now: float) -> None:
        """Take ``robot_sm/state``: the state's name and how the last activity ended."""
        self._state = name
        previous, self._activity_id = self._activity_id, last_activity_id
        if previous is not None and last_activity_id != previous and \
                last_outcome == Outcome.FAILED:
            self._trigger('activity_failed', text or f'activity {last_activity_id} failed', now)

    def operator_present(self, present: bool, now: float) -> None:
        """Take ``robot_sm/operator_present``."""
        previous, self._present = self._present, present
        if previous and not present:
            self._trigger('operator_lost',
                          'operator heartbeat silent: the operator is not present', now)

    def operation_mode(self, mode: int, emergency_stop: bool, now: float) -> None:
        """Take ``robot_sm/operation_mode``."""
        previous, self._mode = self._mode, (mode, emergency_stop)
        if previous is None or previous == self._mode:
            return
        if previous[0] == Mode.AUTONOMOUS and mode == Mode.STOPPED and not emergency_stop:
            heard = self._supervisor
            if heard is not None and now - heard >= SUPERVISOR_SILENCE:
                self._trigger('supervisor_silent', 'supervisor silent (robot_sm/supervisor_'
                              f'heartbeat not heard for {now - heard:.2f} s): the mux stopped '
                              'AUTONOMOUS', now)

    def supervisor_heartbeat(self, now: float) -> None:
        """Take a beat of the supervisor's heartbeat."""
        self._supervisor = now

    def selected_input(self, name: str, now: float) -> None:
        """Take ``robot_sm/selected_input``: the input that drives, ``none`` for none."""
        previous, self._selected = self._selected, name
        mode = self._mode
        if previous in (None, '', 'none') or name not in ('', 'none') or mode is None:
            return
        if mode[0] not in (Mode.AUTONOMOUS, Mode.TELEOPERATION) or mode[1]:
            return
        last = self._odometry[-1] if self._odometry else None
        settings = self.settings
        if last is not None and not at_rest(last, settings.rest_speed, settings.rest_turn_rate):
            self._stale = (now, str(previous), last.speed, mode)

    def teleop_state(self, state: int, now: float) -> None:
        """Take the teleop execution state (0 STOPPED, 1 PAUSED, 2 RUNNING)."""
        previous, self._teleop = self._teleop, state
        if previous in (1, 2) and state == 0:
            was = 'RUNNING' if previous == 2 else 'PAUSED'
            self._trigger('teleop_stopped', f'teleop STOPPED (was {was}): the kill input, a '
                          'controller lost, or the e-stop', now)

    def odometry(self, sample: OdometrySample) -> None:
        """Take an odometry report."""
        self._odometry.append(sample)

    def command(self, zero: bool, now: float) -> None:
        """Take a command to the base (``cmd_vel``)."""
        self._commands.append(CommandSample(now, zero))

    def audit(self, kind: int, operator: str, command: str, now: float) -> None:
        """Take an entry of the audit log (``robot_sm/audit``)."""
        self._audit.append((now, kind, operator, command))

    def snapshot(self, now: float) -> Incident:
        """Open (or join) an incident an operator asked for; return it."""
        return self._trigger('snapshot', 'snapshot requested (robot_sm/snapshot)', now)

    # Time -------------------------------------------------------------------------------------

    def tick(self, now: float) -> List[Incident]:
        """Confirm a stale input's zero, forget what is older than the buffer; return the due."""
        stale = self._stale
        if stale is not None and now - stale[0] >= STALE_SETTLE:
            self._stale = None
            time, name, speed, mode = stale
            if self._mode == mode and not self._cause:
                self._trigger('stale_input', f"input '{name}' stopped driving in "
                              f'{Mode(mode[0]).name} while the robot moved at {speed:.2f} m/s: '
                              'the mux zeroed the base (its commands went stale, or a lock '
                              'masked it)', time)
        horizon = now - self.settings.buffer_seconds - self.settings.after_seconds
        for samples in (self._odometry, self._commands, self._audit):
            while len(samples) > 1 and samples[0][0] < horizon:
                samples.popleft()
        due = [incident for incident in self.open if incident.due <= now]
        self.open = [incident for incident in self.open if incident.due > now]
        return [self._close(incident) for incident in due]

    def _trigger(self, kind: str, cause: str, now: float) -> Incident:
        text = f'{KIND_LABELS[kind]}: {cause}'
        for incident in self.open:
            if incident.time - TAKEN_LATE <= now <= incident.due:
                if kind == 'emergency_stop' and incident.kind != 'emergency_stop' and \
                        now - incident.time <= PROMOTE_WITHIN:
                    incident.also.insert(0, f'{KIND_LABELS[incident.kind]}: {incident.cause}')
                    incident.kind, incident.cause = kind, cause
                elif text not in incident.also and cause != incident.cause:
                    incident.also.append(text)
                return incident
        if self._stale is not None and kind != 'snapshot':
            self._stale = None   # this explains the zero
        mode = self._mode
        incident = Incident(
            self.next_id, kind, cause, now, now + self.settings.after_seconds, state=self._state,
            mode='' if mode is None else
            Mode(mode[0]).name + (', e-stop engaged' if mode[1] else ''))
        self.next_id += 1
        self.open.append(incident)
        return incident

    def _close(self, incident: Incident) -> Incident:
        settings = self.settings
        figures = stop_figures(list(self._odometry), list(self._commands), incident.time,
                               incident.due, settings.rest_speed, settings.rest_turn_rate)
        operator, note = self._operator(incident)
        return replace(incident, figures=figures, operator=operator, operator_note=note)

    def _operator(self, incident: Incident) -> Tuple[str, str]:
        """Return the operator involved and how they were found (or why none is known)."""
        named = [entry for entry in self._audit if entry[2]]
        stops = [entry for entry in named if entry[1] == AUDIT_STOP
                 and incident.time - PROMOTE_WITHIN <= entry[0] <= incident.due]
        if stops:
            time, _, name, _ = min(stops, key=lambda entry: abs(entry[0] - incident.time))
            return name, f'the STOP {time - incident.time:+.2f} s from the trigger'
        before = [entry for entry in named if entry[0] <= incident.time]
        if before:
            time, _, name, command = before[-1]
            return name, f'the last command before the trigger ({command}, ' \
                         f'{incident.time - time:.1f} s before)'
        return '', 'no operator in the audit log (robot_sm/audit) around the trigger'
