"""
A controller that plays a :class:`~robot_sm.control.Trajectory` against the caller's clock.

Use: ``set_trajectory``, then ``reset`` (which records the start time), then ``forward`` every
step. Outside [start, start + duration] the trajectory is finished: it is dropped and ``forward``
returns None until a new one is set and the follower reset again.
"""

from typing import Any, Optional

from robot_sm.control.base_controller import BaseController
from robot_sm.control.robot_state import RobotState
from robot_sm.control.trajectory import Trajectory


class TrajectoryFollower(BaseController):
    """Follow a trajectory from the time of the last reset."""

    def __init__(self) -> None:
        """Start with no trajectory."""
        self._trajectory: Optional[Trajectory] = None
        self._start: Optional[float] = None

    def set_trajectory(self, trajectory: Trajectory) -> None:
        """Store ``trajectory``; it starts at the next ``reset``."""
        if not isinstance(trajectory, Trajectory):
            raise ValueError(f'set_trajectory: {trajectory!r} is not a Trajectory')
        self._trajectory = trajectory
        self._start = None

    def has_trajectory(self) -> bool:
        """Return True while a trajectory is stored (set and not yet finished)."""
        return self._trajectory is not None

    def reset(self, estimated_state: RobotState, setpoint_state: Optional[RobotState],
              t: float, **kwargs: Any) -> bool:
        """Start the stored trajectory at time ``t``; False if there is none."""
        if self._trajectory is None:
            return False
        self._start = t
        return True

    def forward(self, estimated_state: RobotState, setpoint_state: Optional[RobotState],
                t: float, **kwargs: Any) -> Optional[RobotState]:
        """
        Return the trajectory's state at ``t - start``; None before reset or outside its span.

        Both ends are included. A time outside [0, duration] finishes the trajectory: it is
        dropped, so a later ``forward`` does not resume it.
        """
        if self._trajectory is None or self._start is None:
            return None
        elapsed = t - self._start
        if not 0.0 <= elapsed <= self._trajectory.duration:
            self._trajectory = None
            self._start = None
            return None
        return self._trajectory.get_target_state(elapsed)
