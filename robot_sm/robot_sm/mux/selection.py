"""
Which velocity input drives the base in a mode: priorities, freshness and locks.

:class:`Selection` keeps the newest command of every velocity input and the newest message of
every lock, and answers which input drives (twist_mux's rules, within the mode's class):

- An input counts while its newest command arrived in the current mode epoch (after the mode
  was entered: nothing held from before a mode change moves the robot), is at most its
  ``timeout`` old, and the input is armed (the mux disarms teleoperation inputs whose stream ran
  through a stop, until it goes to zero or pauses).
- Of the inputs of the mode's class that count, the one with the highest priority drives, unless
  a lock masks it: a locked lock masks every input of a lower priority (an equal priority is not
  masked, as in twist_mux). Masking follows priority, so when the highest is masked, all are:
  nothing drives.
- A lock is locked while its newest message says true and, with a timeout, while it has not
  been heard for longer than the timeout (before its first message too). Without a timeout it
  starts free.

Recording a command and selecting are O(number of inputs of one class); a mux without locks
checks none.
"""

from typing import Dict, List, NamedTuple, Optional, Sequence, Tuple

from robot_sm.mux.input_statistics import InputStatistics
from robot_sm.mux.inputs import CLASS_NAMES, Lock, VelocityInput
from robot_sm.mux.status import Mode
from robot_sm.mux.velocity import Velocity


class Command(NamedTuple):
    """A command as the mux keeps it: limited, with its arrival time and mode epoch."""

    velocity: Velocity
    time: float
    epoch: int


class InputState:
    """One velocity input: its configuration, newest command, arming and statistics."""

    __slots__ = ('spec', 'command', 'armed', 'stats')

    def __init__(self, spec: VelocityInput) -> None:
        self.spec = spec
        self.command: Optional[Command] = None
        #: False while a teleoperation stream that ran through a stop must go to zero or pause.
        self.armed = True
        self.stats = InputStatistics()

    def counts(self, epoch: int, now: float) -> bool:
        """Return True if its newest command may drive at ``now`` (locks aside)."""
        command = self.command
        return (command is not None and self.armed and command.epoch == epoch
                and now - command.time <= self.spec.timeout)


class LockState:
    """One lock: its configuration, newest value and statistics."""

    __slots__ = ('spec', 'data', 'stats')

    def __init__(self, spec: Lock) -> None:
        self.spec = spec
        self.data = False
        self.stats = InputStatistics()

    def locked(self, now: float) -> bool:
        """Return True if it masks the inputs below its priority at ``now``."""
        if self.data:
            return True
        timeout = self.spec.timeout
        if timeout == 0.0:
            return False
        last = self.stats.last
        return last is None or now - last > timeout

    def describe(self, now: float) -> str:
        """Say whether it is locked, and why."""
        if self.data:
            return 'locked (data true)'
        if not self.locked(now):
            return 'free'
        age = self.stats.age(now)
        return 'locked (never heard)' if age is None else f'locked (silent for {age:.2f} s)'


class Selection:
    """The velocity inputs and locks of a mux, and the choice of the input that drives."""

    def __init__(self, inputs: Sequence[VelocityInput], locks: Sequence[Lock]) -> None:
        """Keep ``inputs`` by name and, per mode, in order of falling priority."""
        self.inputs = {spec.name: InputState(spec) for spec in inputs}
        self.locks = {spec.name: LockState(spec) for spec in locks}
        self._by_mode: Dict[Mode, Tuple[InputState, ...]] = {}
        for mode in (Mode.AUTONOMOUS, Mode.TELEOPERATION):
            states = [state for state in self.inputs.values() if state.spec.mode is mode]
            self._by_mode[mode] = tuple(sorted(states, key=lambda s: -s.spec.priority))
        self._locks = tuple(self.locks.values())

    def statistics(self) -> Dict[str, InputStatistics]:
        """Return the statistics of the velocity inputs and of the locks, by name."""
        statistics = {name: state.stats for name, state in self.inputs.items()}
        statistics.update((name, state.stats) for name, state in self.locks.items())
        return statistics

    def of_mode(self, mode: Mode) -> Tuple[InputState, ...]:
        """Return the inputs that drive in ``mode``, highest priority first."""
        return self._by_mode.get(mode, ())

    def select(self, mode: Mode, epoch: int, now: float) -> Optional[InputState]:
        """Return the input that drives in ``mode`` at ``now``, or None (see the rules)."""
        for state in self._by_mode.get(mode, ()):
            if state.counts(epoch, now):
                if self._locks and state.spec.priority < self.lock_priority(now):
                    return None
                return state
        return None

    def lock_priority(self, now: float) -> int:
        """Return the highest priority of the locked locks: inputs below it are masked."""
        return max((lock.spec.priority for lock in self._locks if lock.locked(now)), default=0)

    def masking_lock(self, priority: int, now: float) -> Optional[LockState]:
        """Return the locked lock of highest priority that masks ``priority``, or None."""
        masking = [lock for lock in self._locks
                   if lock.spec.priority > priority and lock.locked(now)]
        return max(masking, key=lambda lock: lock.spec.priority, default=None)

    def masked(self, spec: VelocityInput, now: float) -> bool:
        """Return True if a lock masks ``spec`` at ``now``."""
        return bool(self._locks) and spec.priority < self.lock_priority(now)

    def all_masked(self, mode: Mode, now: float) -> bool:
        """Return True if no input of ``mode`` could drive for the locks (or there is none)."""
        states = self._by_mode.get(mode, ())
        return not states or self.masked(states[0].spec, now)

    def arm(self, mode: Mode, armed: bool) -> None:
        """Arm (or disarm) every input of ``mode``."""
        for state in self._by_mode.get(mode, ()):
            state.armed = armed

    def describe(self, state: InputState, selected: Optional[InputState], now: float) -> str:
        """Say what ``state`` is doing at ``now``, for diagnostics."""
        if state is selected:
            return 'driving'
        lock = self.masking_lock(state.spec.priority, now)
        if lock is not None:
            return f'locked by {lock.spec.name}'
        age = state.stats.age(now)
        if age is None:
            return 'no message yet'
        if not state.armed:
            return 'ran through a stop: waits for a zero command or a pause'
        return 'fresh' if age <= state.spec.timeout else f'stale ({age:.2f} s old)'

    def why_none(self, mode: Mode, now: float) -> str:
        """Say why no input of ``mode`` drives at ``now``, input by input."""
        states = self._by_mode.get(mode, ())
        if not states:
            return f'no input of class {CLASS_NAMES.get(mode, mode.name)} is configured'
        reasons: List[str] = []
        for state in states:
            lock = self.masking_lock(state.spec.priority, now)
            age = state.stats.age(now)
            if lock is not None:
                reasons.append(f'{state.spec.name}: locked by {lock.spec.name}')
            elif not state.armed and age is not None:
                reasons.append(f'{state.spec.name}: waits for a zero command or a pause')
            else:
                silent = 'no message yet' if age is None else f'newest message {age:.2f} s old'
                reasons.append(f'{state.spec.name}: {silent}')
        return 'no fresh command (' + '; '.join(reasons) + ')'
