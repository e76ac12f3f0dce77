"""
A first-order low-pass filter on joint setpoints, meant to follow another controller.

Each step: ``filtered = alpha * input + (1 - alpha) * filtered``, over the whole (3, N) joint data
array (positions, velocities and efforts alike); the output has the input's validity mask. On
reset the filter starts from the estimated joint state, so a robot already moving is not jerked
towards zero when the filter takes over.

By default ``alpha`` applies per call. Given a ``period``, ``alpha`` is the weight for one
period and each call uses ``1 - (1 - alpha) ** (dt / period)`` for the time ``dt`` since the
previous call, so the filter's time constant does not depend on how often it is called.
"""

from typing import Any, Optional, Sequence

import numpy as np

from robot_sm.control.arrays import control_space, FloatArray
from robot_sm.control.base_controller import BaseController
from robot_sm.control.joint_state import JointState
from robot_sm.control.robot_state import RobotState


class LowPassFilterController(BaseController):
    """Exponential smoothing of the setpoint's joint data; seeded from the estimated state."""

    def __init__(self, robot_joint_space: Sequence[str], alpha: float = 0.1,
                 period: Optional[float] = None) -> None:
        """
        Configure the filter: ``0 < alpha <= 1`` (1 = no filtering; smaller = smoother).

        :raises ValueError: for an ``alpha`` outside (0, 1] or a ``period`` that is not > 0.
        """
        space = control_space(robot_joint_space, 'robot_joint_space')
        if not (isinstance(alpha, (int, float)) and 0.0 < alpha <= 1.0):
            raise ValueError(f'alpha: must be in (0, 1], got {alpha!r}')
        if period is not None and not (np.isfinite(period) and period > 0):
            raise ValueError(f'period: must be a finite number > 0, got {period!r}')
        self._space = space
        self.alpha = float(alpha)
        self.period = period
        self._filtered: Optional[FloatArray] = None
        self._last_t = 0.0

    @property
    def filtered_data_array(self) -> Optional[FloatArray]:
        """Return the filter's current (3, N) state, or None before a successful reset."""
        return None if self._filtered is None else self._filtered.copy()

    def _spaces_match(self, estimated: RobotState, setpoint: Optional[RobotState]) -> bool:
        for state in (estimated, setpoint):
            if state is not None and state.joints is not None \
                    and state.joints.space != self._space:
                return False
        return True

    def reset(self, estimated_state: RobotState, setpoint_state: Optional[RobotState],
              t: float, **kwargs: Any) -> bool:
        """
        Start the filter from the estimated joint data.

        False if the estimated state has no joints or a state is in another joint space.
        """
        if not self._spaces_match(estimated_state, setpoint_state) \
                or estimated_state.joints is None:
            return False
        self._filtered = estimated_state.joints.data_array.copy()
        self._last_t = t
        return True

    def _weight(self, t: float) -> float:
        if self.period is None:
            return self.alpha
        elapsed = max(t - self._last_t, 0.0)
        self._last_t = t
        return 1.0 - (1.0 - self.alpha) ** (elapsed / self.period)

    def forward(self, estimated_state: RobotState, setpoint_state: Optional[RobotState],
                t: float, **kwargs: Any) -> Optional[RobotState]:
        """
        Return the filtered setpoint joints (with the setpoint's validity mask).

        None before a successful reset, without a joint setpoint, or when a state is in
        another joint space.
        """
        if not self._spaces_match(estimated_state, setpoint_state) or self._filtered is None:
            return None
        if setpoint_state is None or setpoint_state.joints is None:
            return None
        weight = self._weight(t)
        data = setpoint_state.joints.data_array
        self._filtered = weight * data + (1.0 - weight) * self._filtered
        return RobotState(joints=JointState.trusted(
            self._space, self._filtered.copy(), setpoint_state.joints.valid_array))
