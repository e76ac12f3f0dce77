"""
The interface every composable controller implements: ``reset`` then ``forward`` each step.

Controllers map an estimated :class:`~robot_sm.control.RobotState` and an optional setpoint to
a desired state. They take the caller's clock ``t`` (seconds, simulated or real) as an argument
and never read a clock themselves.
"""

from abc import ABC, abstractmethod
from typing import Any, Optional

from robot_sm.control.robot_state import RobotState


class BaseController(ABC):
    """A controller: ``reset`` once before running, then ``forward`` every control step."""

    @abstractmethod
    def reset(self, estimated_state: RobotState, setpoint_state: Optional[RobotState],
              t: float, **kwargs: Any) -> bool:
        """
        Bring the controller to a safe initial state; return True when it is ready.

        Called once immediately before the controller starts running (and again whenever it is
        switched in by a :class:`~robot_sm.control.ControllerContainer`).
        """

    @abstractmethod
    def forward(self, estimated_state: RobotState, setpoint_state: Optional[RobotState],
                t: float, **kwargs: Any) -> Optional[RobotState]:
        """Return the desired state for this step, or None if no valid output can be made."""
