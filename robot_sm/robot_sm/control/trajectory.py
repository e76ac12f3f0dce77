"""
A trajectory: a desired robot state for every time from 0 to its duration.

Implementations must be continuous in time (interpolate between their samples), since a
:class:`~robot_sm.control.TrajectoryFollower` samples them at whatever times the control loop
runs.
"""

from abc import ABC, abstractmethod
from typing import Optional

from robot_sm.control.robot_state import RobotState


class Trajectory(ABC):
    """A continuous-time desired state, defined from time 0 to :attr:`duration` seconds."""

    @property
    @abstractmethod
    def duration(self) -> float:
        """Length of the trajectory in seconds."""

    @abstractmethod
    def get_target_state(self, time: float) -> Optional[RobotState]:
        """Return the desired state ``time`` seconds after the start, or None if undefined."""
