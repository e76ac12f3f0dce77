"""
Run controllers side by side (:class:`ParallelController`) or as a chain (:class:`Sequential...`).

Both are controllers themselves, so they nest. A child returning None (or failing to reset)
stops the composition at once: later children are not run (or not reset).
"""

from typing import Any, List, Optional, Sequence

from robot_sm.control.base_controller import BaseController
from robot_sm.control.combine import combine_robot_states
from robot_sm.control.robot_state import RobotState


def _children(controllers: Sequence[BaseController], kind: str) -> List[BaseController]:
    children = list(controllers)
    if len(children) < 2:
        raise ValueError(f'{kind} needs at least 2 controllers, got {len(children)}')
    for child in children:
        if not isinstance(child, BaseController):
            raise ValueError(f'{kind}: {child!r} is not a BaseController')
    return children


class _Composite(BaseController):
    """Children reset in order; the first one that fails stops the reset."""

    def __init__(self, controllers: Sequence[BaseController]) -> None:
        self._controllers = _children(controllers, type(self).__name__)

    @property
    def controllers(self) -> List[BaseController]:
        """Return the children, in the order they run."""
        return list(self._controllers)

    def reset(self, estimated_state: RobotState, setpoint_state: Optional[RobotState],
              t: float, **kwargs: Any) -> bool:
        """Reset every child in order; return False at the first that fails (later not reset)."""
        return all(child.reset(estimated_state, setpoint_state, t, **kwargs)
                   for child in self._controllers)


class ParallelController(_Composite):
    """
    Run every child on the same inputs and merge their outputs with ``combine_robot_states``.

    The output is None as soon as one child returns None or two children set the same thing.
    """

    def forward(self, estimated_state: RobotState, setpoint_state: Optional[RobotState],
                t: float, **kwargs: Any) -> Optional[RobotState]:
        """Return the merged outputs of all children, or None on the first failure."""
        merged: Optional[RobotState] = RobotState()
        for child in self._controllers:
            merged = combine_robot_states(
                merged, child.forward(estimated_state, setpoint_state, t, **kwargs))
            if merged is None:
                return None
        return merged


class SequentialController(_Composite):
    """
    Chain the children: each one's output is the next one's setpoint; the last output is returned.

    Typical use: a controller producing commands followed by a filter smoothing them.
    """

    def forward(self, estimated_state: RobotState, setpoint_state: Optional[RobotState],
                t: float, **kwargs: Any) -> Optional[RobotState]:
        """Return the last child's output, or None as soon as a child returns None."""
        setpoint = setpoint_state
        for child in self._controllers:
            setpoint = child.forward(estimated_state, setpoint, t, **kwargs)
            if setpoint is None:
                return None
        return setpoint
