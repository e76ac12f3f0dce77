"""What the mux reports: its mode, its answers, and the diagnostics of it and its inputs."""

from dataclasses import dataclass
from enum import IntEnum
from typing import NamedTuple, Optional, Tuple

from robot_sm.contract import Answer, Mode

__all__ = ['Answer', 'InputReport', 'Level', 'Mode', 'MuxState', 'MuxStatus']


class MuxState(NamedTuple):
    """What ``robot_sm/operation_mode`` tells: the mode and whether the e-stop is engaged."""

    mode: Mode
    emergency_stop: bool


class Level(IntEnum):
    """Diagnostic levels, numbered as in ``diagnostic_msgs/DiagnosticStatus``."""

    OK = 0
    WARN = 1
    ERROR = 2


@dataclass(frozen=True)
class InputReport:
    """Diagnostics of one input: seconds since the newest message, rate, counts, state."""

    name: str
    age: Optional[float]
    rate: float
    received: int
    dropped: int
    #: What a velocity input or lock is doing ("driving", "locked by pause", "free", ...).
    state: str = ''


@dataclass(frozen=True)
class MuxStatus:
    """Everything diagnostics report about the mux at one moment."""

    level: Level
    summary: str
    mode: Mode
    emergency_stop: bool
    emergency_stop_reason: str
    active_source: str
    inputs: Tuple[InputReport, ...]
    #: The highest priority of the locked locks: inputs below it are masked (0: none).
    lock_priority: int = 0
