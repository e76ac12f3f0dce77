"""
One operator in control of a robot: the control lease, Spot's lease among honest surfaces.

At most one operator holds control of a robot (one namespace). Only they may give the commands
that make the robot move or change what it will do (:data:`NEEDS_CONTROL`); engaging the e-stop
and everything that only reads never need it. The rules, :class:`ControlLease`:

- **acquire**: an operator's first command that needs control acquires it when nobody holds
  it, and the answer says so; ``ACQUIRE_CONTROL`` acquires it when it is free or its holder is
  stale. Held control is never taken implicitly.
- **take**: ``TAKE_CONTROL`` takes it from whoever holds it; the holder is told (the published
  control names who took it from whom, and when).
- **stale**: a holder silent for its ``stale_after`` (its surface's keep-alive period, e.g. a
  page's heartbeat; else the gateway's idle time, 60 s by default) is stale: anyone may take
  control without forcing, and the holder's own next command makes it fresh again.
- **give up**: ``RELEASE_CONTROL``, by the holder only.
- **raw ROS callers** (no identity): they may operate a robot nobody holds, as RSM's tools always
  did; while an operator holds control their motion-changing requests are refused naming the
  holder, unless ``raw_ros_open`` (a lab setting). STOP always works.
- **restart**: nothing is kept: after a restart nobody holds control.

Time is an argument (monotonic seconds for silences); ``clock`` texts (wall-clock times) only
appear in messages. Pure: no rclpy.
"""

from dataclasses import dataclass
import time
from typing import Callable, FrozenSet, Optional

from robot_sm.contract import Answer, Command
from robot_sm.gateway.request import OperatorId

#: The commands that never need control: a STOP, and the control commands themselves.
FREE_COMMANDS: FrozenSet[Command] = frozenset({
    Command.ENGAGE_EMERGENCY_STOP, Command.ACQUIRE_CONTROL, Command.TAKE_CONTROL,
    Command.RELEASE_CONTROL, Command.KEEP_CONTROL})
#: The commands that need control: everything that moves the robot or changes what it will do.
NEEDS_CONTROL: FrozenSet[Command] = frozenset(set(Command) - FREE_COMMANDS)
#: Seconds of silence after which a holder without a keep-alive of its own is stale.
IDLE_TIMEOUT = 60.0


def wall_clock(seconds: float) -> str:
    """Return a wall-clock time as operators read it ('10:22:01')."""
    return time.strftime('%H:%M:%S', time.localtime(seconds))


@dataclass(frozen=True)
class Holder:
    """Who holds control: since when, last heard when, and after what silence they are stale."""

    by: OperatorId
    #: Monotonic and wall-clock seconds of the acquisition.
    since: float
    since_wall: float
    last_heard: float
    stale_after: float

    def silence(self, now: float) -> float:
        """Return the seconds since the holder was last heard."""
        return max(0.0, now - self.last_heard)

    def stale(self, now: float) -> bool:
        """Return whether the holder has been silent for longer than ``stale_after``."""
        return self.silence(now) > self.stale_after


@dataclass(frozen=True)
class Decision:
    """Whether a command may go on, and what the lease did for it."""

    allowed: bool
    #: Why not (a refusal for want of control), or '' when allowed.
    refusal: str = ''
    #: The command acquired control (nobody held it): its answer says so.
    acquired: bool = False


def describe(holder: Holder, now: float) -> str:
    """Name a holder as refusals do: who, where, since when, and whether stale."""
    by = holder.by
    where = ', '.join(part for part in (by.surface, by.address) if part)
    stale = f', stale: silent for {holder.silence(now):.0f} s' if holder.stale(now) else ''
    return f"{by.name}{f' ({where})' if where else ''} since {wall_clock(holder.since_wall)}" \
        f'{stale}'


class ControlLease:
    """The control of one robot: who holds it, and the rules above."""

    def __init__(self, idle_timeout: float = IDLE_TIMEOUT, raw_ros_open: bool = False,
                 wall: Callable[[], float] = time.time) -> None:
        self.idle_timeout = idle_timeout
        self.raw_ros_open = raw_ros_open
        self._wall = wall
        self.holder: Optional[Holder] = None
        #: Who held control before the last take-over, and the wall-clock time of it.
        self.taken_from: Optional[OperatorId] = None
        self.taken_at = 0.0

    def _hold(self, by: OperatorId, stale_after: float, now: float) -> None:
        self.holder = Holder(by, now, self._wall(), now, stale_after or self.idle_timeout)

    def stale(self, now: float) -> bool:
        """Return whether someone holds control and has fallen silent."""
        return self.holder is not None and self.holder.stale(now)

    def holds(self, by: OperatorId) -> bool:
        """Return whether ``by`` holds control."""
        return self.holder is not None and not by.raw and self.holder.by.name == by.name

    # -- commands ---------------------------------------------------------------------------

    def check(self, by: OperatorId, command: Command, now: float) -> Decision:
        """
        Decide whether ``by`` may give ``command`` now; acquire control for it when free.

        The holder's command counts as a sign of life (it makes a stale holder fresh).
        """
        if command in FREE_COMMANDS:
            return Decision(True)
        holder = self.holder
        if by.raw:
            if holder is None or self.raw_ros_open:
                return Decision(True)
            return Decision(False, f'control is held by {describe(holder, now)}: raw ROS '
                                   'requests that move the robot are refused while an '
                                   'operator holds control (STOP always works)')
        if holder is None:
            self._hold(by, 0.0, now)
            return Decision(True, acquired=True)
        if self.holds(by):
            self.heard(by, now)
            return Decision(True)
        how = 'robot-sm control take' + (
            '' if holder.stale(now) else ' (it is not stale: you take it from them)')
        taken = (f'control was taken from you by {holder.by.name} at '
                 f'{wall_clock(self.taken_at)}; ' if self.taken_from is not None
                 and self.taken_from.name == by.name else '')
        return Decision(False, f'{taken}control is held by {describe(holder, now)}; to take '
                               f'over: {how}, or Take control in the web console or the rqt '
                               'panel')

    def heard(self, by: OperatorId, now: float) -> None:
        """Note a sign of life of the holder (a command or a keep-alive)."""
        holder = self.holder
        if holder is not None and self.holds(by):
            self.holder = Holder(holder.by, holder.since, holder.since_wall, now,
                                 holder.stale_after)

    def acquire(self, by: OperatorId, stale_after: float, now: float) -> Answer:
        """Acquire control: when it is free, or its holder is stale."""
        if by.raw:
            return Answer(False, 'control needs an operator: name one (by.name)')
        holder = self.holder
        if self.holds(by):
            self._keep(stale_after, now)
            return Answer(True, f'{by.name} holds control already')
        if holder is not None and not holder.stale(now):
            return Answer(False, f'control is held by {describe(holder, now)}; to take over: '
                                 'robot-sm control take')
        self._note_taken(holder)
        self._hold(by, stale_after, now)
        was = f' (from {holder.by.name}, stale)' if holder is not None else ''
        return Answer(True, f'control acquired by {by.name}{was}')

    def take(self, by: OperatorId, stale_after: float, now: float) -> Answer:
        """Take control, from whoever holds it."""
        if by.raw:
            return Answer(False, 'control needs an operator: name one (by.name)')
        holder = self.holder
        if self.holds(by):
            self._keep(stale_after, now)
            return Answer(True, f'{by.name} holds control already')
        self._note_taken(holder)
        self._hold(by, stale_after, now)
        if holder is None:
            return Answer(True, f'control acquired by {by.name}')
        return Answer(True, f'control taken by {by.name} from {describe(holder, now)}')

    def release(self, by: OperatorId, now: float) -> Answer:
        """Give control up: by the holder only."""
        holder = self.holder
        if holder is None:
            return Answer(True, 'nobody holds control; nothing changed')
        if not self.holds(by):
            return Answer(False, f'only the holder gives control up: it is held by '
                                 f'{describe(holder, now)}')
        self.holder = None
        self.taken_from = None
        return Answer(True, f'{by.name} gave control up: nobody holds it')

    def keep(self, by: OperatorId, stale_after: float, now: float) -> Answer:
        """Keep control alive (a holder's keep-alive); refused to anyone else."""
        if not self.holds(by):
            holder = self.holder
            held = f'held by {describe(holder, now)}' if holder is not None else 'free'
            return Answer(False, f'{by.name or "a raw ROS caller"} does not hold control '
                                 f'(it is {held})')
        self._keep(stale_after, now)
        return Answer(True, f'{by.name} keeps control')

    def _keep(self, stale_after: float, now: float) -> None:
        holder = self.holder
        assert holder is not None
        self.holder = Holder(holder.by, holder.since, holder.since_wall, now,
                             stale_after or holder.stale_after)

    def _note_taken(self, holder: Optional[Holder]) -> None:
        if holder is not None:
            self.taken_from, self.taken_at = holder.by, self._wall()


def raw_refusal(held: bool, holder: str, since: str, raw_ros_open: bool) -> str:
    """
    Return why a node refuses a raw ROS request that moves the robot; '' to carry it out.

    For the mux and the service provider, which learn who holds control from the published
    control (``robot_sm/control``): ``held`` and ``holder`` (its name), ``since`` (a time).
    """
    if not held or raw_ros_open:
        return ''
    return (f'control is held by {holder} since {since}: raw ROS requests that move the robot '
            'are refused while an operator holds control (STOP always works); use robot-sm '
            'or the operator tools, or robot-sm control take')
