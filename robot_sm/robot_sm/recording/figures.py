"""
How a stop went, from odometry and the base's commands: the figures of an incident's record.

From the trigger on: the speed the robot had (the odometry's last report at or before it), the
time to the first zero command on ``cmd_vel`` (0 when the newest command at the trigger was
already zero: the mux zeroes the base before it tells the rest of the suite why), the time until
the robot was at rest (the first odometry report from which every report to the end of the
recording is below ``rest_speed`` and ``rest_turn_rate``) and the distance it travelled until then
(the path through the odometry's positions). A figure that cannot be had is None: no odometry,
no zero command, not at rest by the end.
"""

from dataclasses import dataclass
import math
from typing import List, NamedTuple, Optional, Sequence


class OdometrySample(NamedTuple):
    """One odometry report: when it arrived (s), the position (m) and the speeds."""

    time: float
    x: float
    y: float
    #: Linear speed (m/s, the norm of the body frame's x and y) and turn rate (rad/s).
    speed: float
    turn_rate: float


class CommandSample(NamedTuple):
    """One command to the base: when it arrived (s) and whether it was zero."""

    time: float
    zero: bool


@dataclass(frozen=True)
class StopFigures:
    """The figures of a stop; see the module."""

    speed: Optional[float]
    time_to_zero: Optional[float]
    time_to_rest: Optional[float]
    distance: Optional[float]


def at_rest(sample: OdometrySample, rest_speed: float, rest_turn_rate: float) -> bool:
    """Return whether the robot is at rest in ``sample``."""
    return abs(sample.speed) < rest_speed and abs(sample.turn_rate) < rest_turn_rate


def _time_to_zero(commands: Sequence[CommandSample], trigger: float,
                  end: float) -> Optional[float]:
    before = [command for command in commands if command.time <= trigger]
    if before and before[-1].zero:
        return 0.0
    for command in commands:
        if trigger < command.time <= end and command.zero:
            return command.time - trigger
    return None


def _rest_index(samples: Sequence[OdometrySample], rest_speed: float,
                rest_turn_rate: float) -> Optional[int]:
    """Return the index from which every sample is at rest, or None if the last one is not."""
    index = None
    for position in range(len(samples) - 1, -1, -1):
        if not at_rest(samples[position], rest_speed, rest_turn_rate):
            break
        index = position
    return index


def stop_figures(odometry: Sequence[OdometrySample], commands: Sequence[CommandSample],
                 trigger: float, end: float, rest_speed: float,
                 rest_turn_rate: float) -> StopFigures:
    """Return the figures of a stop triggered at ``trigger``, recorded until ``end`` (s)."""
    time_to_zero = _time_to_zero(commands, trigger, end)
    before = [sample for sample in odometry if sample.time <= trigger]
    after = [sample for sample in odometry if trigger < sample.time <= end]
    if not before and not after:
        return StopFigures(None, time_to_zero, None, None)
    path: List[OdometrySample] = before[-1:] + after
    speed = before[-1].speed if before else None
    rest = _rest_index(path, rest_speed, rest_turn_rate)
    time_to_rest = None if rest is None else max(0.0, path[rest].time - trigger)
    last = len(path) - 1 if rest is None else rest
    distance = sum(math.dist((a.x, a.y), (b.x, b.y))
                   for a, b in zip(path[:last], path[1:last + 1]))
    return StopFigures(speed, time_to_zero, time_to_rest, distance)
