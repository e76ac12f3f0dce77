"""Execution state of teleoperation and the per-tick context every retargeter reads."""

from dataclasses import dataclass, field
import enum
from typing import Tuple


class ExecutionState(enum.Enum):
    """Whether controller motion is retargeted: the output of the teleop state machine."""

    UNKNOWN = 'unknown'
    STOPPED = 'stopped'
    PAUSED = 'paused'
    RUNNING = 'running'


#: Channels of the one-hot ``teleop_state`` output of a teleop state manager, in this order.
STATE_CHANNELS: Tuple[str, ...] = ('stopped', 'paused', 'running')

#: One-hot channels as produced by a state manager: ``(('stopped', True), ...)``.
OneHotState = Tuple[Tuple[str, bool], ...]


def one_hot(state: ExecutionState) -> OneHotState:
    """Return the one-hot ``teleop_state`` channels of ``state`` (STOPPED, PAUSED or RUNNING)."""
    if state is ExecutionState.UNKNOWN:
        raise ValueError('UNKNOWN has no one-hot channel')
    return tuple((channel, channel == state.value) for channel in STATE_CHANNELS)


@dataclass(frozen=True)
class ExecutionEvents:
    """The execution state of this tick and whether a reset was requested in it."""

    reset: bool = False
    state: ExecutionState = ExecutionState.UNKNOWN


@dataclass(frozen=True)
class ComputeContext:
    """
    What every node of a tick shares: the time and the execution events.

    A context built without events is UNKNOWN, under which the RUNNING-gated retargeters
    (clutch, roll) never engage.
    """

    time: float
    events: ExecutionEvents = field(default_factory=ExecutionEvents)
