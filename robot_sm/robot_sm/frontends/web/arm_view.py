"""
The arm under teleop as the page shows it: teleop's state, the clutch, the joints, the error.

The teleop node (``teleop_retargeting``) publishes its execution state and its clutch target
(``teleop/ee_target``, in the arm's root link) but not whether the clutch is engaged; it is told
here by the node's own rule (RUNNING, the arm hand's pose tracked, and, with ``require_squeeze``,
its squeeze above ``squeeze_threshold``), from the controller streams the node reads and the
settings it was given (:class:`TeleopSetup`). The tracking error is the distance from the clutch
target to the end effector the arm reached, its forward kinematics at the ``joint_states``
(``reach``). Pure: no rclpy, time as an argument.
"""

from dataclasses import dataclass
import math
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple

import numpy as np

#: robot_sm_msgs/ExecutionState values, named.
TELEOP_STATES = {0: 'STOPPED', 1: 'PAUSED', 2: 'RUNNING'}
RUNNING = 2
#: A joint's lower and upper position limit (None: none).
Limits = Tuple[Optional[float], Optional[float]]


@dataclass(frozen=True)
class TeleopSetup:
    """What the arm view needs of the teleop node's parameters (their defaults)."""

    arm_hand: str = 'right'
    axis_squeeze: int = 3
    squeeze_threshold: float = 0.5
    require_squeeze: bool = True
    input_timeout: float = 0.1
    input_tolerance: float = 0.4
    ee_frame: str = 'gripper_tcp'
    robot_description: str = ''
    urdf_path: str = ''

    @classmethod
    def from_parameters(cls, values: Mapping[str, object]) -> 'TeleopSetup':
        """Return the setup of the parameters found (those missing keep their defaults)."""
        known = {name: values[name] for name in cls.__dataclass_fields__ if name in values}
        return cls(**known)  # type: ignore[arg-type]


class ArmState:
    """The newest of what teleop and the arm said, and the arm view made of it."""

    def __init__(self, setup: TeleopSetup, limits: Mapping[str, Limits],
                 reach: Callable[[Mapping[str, float]], Any]) -> None:
        """Show the joints of ``limits`` (name: lower, upper); ``reach`` is the arm's FK."""
        self.setup = setup
        self.limits = dict(limits)
        self.reach = reach
        self.state: Optional[int] = None
        self.squeeze: Optional[float] = None
        self.pose_at: Optional[float] = None
        self.target: Optional[np.ndarray] = None
        self.positions: Dict[str, float] = {}

    def take_joy(self, axes: Sequence[float]) -> None:
        """Take an ``xr/<arm_hand>/joy`` message's axes."""
        index = self.setup.axis_squeeze
        self.squeeze = float(axes[index]) if len(axes) > index else None

    def take_pose(self, now: float) -> None:
        """Take an ``xr/<arm_hand>/pose`` message's arrival: the hand is tracked."""
        self.pose_at = now

    def take_target(self, xyz: Sequence[float]) -> None:
        """Take the clutch target's position."""
        self.target = np.array(xyz, dtype=float)

    def take_joints(self, names: Sequence[str], positions: Sequence[float]) -> None:
        """Take a ``joint_states`` message (the joints of other parts are left out)."""
        for name, value in zip(names, positions):
            if name in self.limits and math.isfinite(value):
                self.positions[name] = float(value)

    def clutch(self, now: float) -> Optional[bool]:
        """Return whether the clutch is engaged now (None: the state is not known)."""
        if self.state is None:
            return None
        setup = self.setup
        tracked = (self.pose_at is not None
                   and now - self.pose_at <= setup.input_timeout + setup.input_tolerance)
        squeezed = (not setup.require_squeeze
                    or (self.squeeze is not None and self.squeeze > setup.squeeze_threshold))
        return self.state == RUNNING and tracked and squeezed

    def error(self) -> Optional[float]:
        """Return the distance (m) from the clutch target to the end effector reached."""
        if self.target is None or not self.positions:
            return None
        reached = np.asarray(self.reach(self.positions), dtype=float)
        return round(float(np.linalg.norm(self.target - reached)), 5)

    def joints(self) -> List[Dict[str, Any]]:
        """Return each joint known with its position and limits (None: no limit)."""
        return [{'name': name, 'position': round(self.positions[name], 4),
                 'lower': None if lower is None else round(lower, 4),
                 'upper': None if upper is None else round(upper, 4)}
                for name, (lower, upper) in self.limits.items() if name in self.positions]

    def view(self, now: float, node: str) -> Dict[str, object]:
        """Return what the page shows of the arm of teleop node ``node``."""
        return {'present': True, 'node': node,
                'state': TELEOP_STATES.get(self.state, '') if self.state is not None else '',
                'clutch': self.clutch(now), 'error': self.error(), 'joints': self.joints()}
