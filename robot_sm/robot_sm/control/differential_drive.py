"""
Differential-drive kinematics: base twist to wheel angular velocities, and a wheel speed limit.

For a base moving forward at ``v`` (m/s) while turning at ``w`` (rad/s, counter-clockwise
positive, REP-103), with wheel radius ``r`` and wheel separation ``b``::

    left  = (2 v - w b) / (2 r)        right = (2 v + w b) / (2 r)        (rad/s)

:func:`limit_wheel_speeds` scales both wheels by the same factor, so the base slows down along
the same arc instead of turning more sharply (or less) than it was told. A twist so large that the
formula overflows (``v`` near 1e308) is still limited exactly: :func:`limited_wheel_velocities`
scales it down first, which changes neither the ratio of the wheels nor the limited result.
"""

import math
from typing import Any, Optional, Sequence, Tuple

import numpy as np

from robot_sm.control.arrays import control_space, FloatArray, indices_of
from robot_sm.control.base_controller import BaseController
from robot_sm.control.joint_state import JointState, VELOCITY
from robot_sm.control.robot_state import RobotState

DEFAULT_WHEEL_JOINTS = ('left_wheel_joint', 'right_wheel_joint')


def wheel_velocities(linear: Any, angular: Any, wheel_radius: float,
                     wheel_base: float) -> Tuple[Any, Any]:
    """
    Return (left, right) wheel angular velocities for forward speed ``linear`` and yaw rate.

    Works element-wise on numpy arrays as well as on floats.
    """
    scale = 1.0 / (2.0 * wheel_radius)
    return ((2.0 * linear - angular * wheel_base) * scale,
            (2.0 * linear + angular * wheel_base) * scale)


def limited_wheel_velocities(linear: float, angular: float, wheel_radius: float,
                             wheel_base: float, max_speed: float) -> Tuple[float, float]:
    """
    Return (left, right) wheel velocities for any finite twist, scaled down to ``max_speed``.

    Finite inputs always give finite outputs within the limit: when the formula would overflow
    the twist is first divided by its largest component (the ratio of the wheels, which is all
    the limit keeps, does not change).
    """
    left, right = wheel_velocities(linear, angular, wheel_radius, wheel_base)
    if not (math.isfinite(left) and math.isfinite(right)):
        size = max(abs(linear), abs(angular))
        left, right = wheel_velocities(linear / size, angular / size, wheel_radius, wheel_base)
        peak = max(abs(left), abs(right))  # > 0: the unscaled speeds overflowed
        return left * (max_speed / peak), right * (max_speed / peak)
    peak = max(abs(left), abs(right))
    if peak > max_speed:
        return left * (max_speed / peak), right * (max_speed / peak)
    return left, right


def limit_wheel_speeds(wheels: FloatArray, max_speed: float) -> FloatArray:
    """
    Scale each row of wheel speeds so that none exceeds ``max_speed`` in magnitude.

    ``wheels`` has the wheels along its last axis; all wheels of a row are scaled by the same
    factor, which keeps the ratio between them (the path curvature). Rows within the limit are
    returned unchanged.
    """
    peak = np.max(np.abs(wheels), axis=-1, keepdims=True)
    headroom = np.divide(max_speed, peak, out=np.full_like(peak, np.inf), where=peak > 0.0)
    return wheels * np.minimum(1.0, headroom)


def check_geometry(wheel_radius: float, wheel_base: float,
                   max_wheel_speed: Optional[float] = None) -> None:
    """
    Check the drive's dimensions and optional wheel speed limit.

    :raises ValueError: unless the radius and base are finite and > 0 and the limit, when
        given, finite and > 0.
    """
    for name, value in (('wheel_radius', wheel_radius), ('wheel_base', wheel_base),
                        ('max_wheel_speed', max_wheel_speed)):
        if value is None and name == 'max_wheel_speed':
            continue
        if not (isinstance(value, (int, float)) and np.isfinite(value) and value > 0):
            raise ValueError(f'{name}: must be a finite number > 0, got {value!r}')


class DifferentialDriveController(BaseController):
    """
    Turn a root velocity setpoint into left and right wheel velocity commands.

    The setpoint's root linear velocity x is the forward speed and its angular velocity z the
    yaw rate (a missing one counts as zero); other components are ignored, as a differential
    drive cannot produce them. The output sets the velocities of the two wheel joints of the
    joint space. Stateless: ``reset`` always succeeds.
    """

    def __init__(self, robot_joint_space: Sequence[str], wheel_radius: float,
                 wheel_base: float, wheel_joints: Sequence[str] = DEFAULT_WHEEL_JOINTS,
                 max_wheel_speed: Optional[float] = None) -> None:
        """
        Configure the drive; ``max_wheel_speed`` (rad/s) of None means no limit.

        :raises ValueError: for non-positive dimensions or limit, or wheel joints that are not
            two distinct joints of ``robot_joint_space``.
        """
        check_geometry(wheel_radius, wheel_base, max_wheel_speed)
        self._space = control_space(robot_joint_space, 'robot_joint_space')
        self._wheels = indices_of(list(wheel_joints), self._space, 'wheel_joints')
        if len(self._wheels) != 2:
            raise ValueError(f'wheel_joints: must name 2 joints (left, right), got '
                             f'{list(wheel_joints)}')
        self._valid = np.zeros((3, len(self._space)), dtype=np.bool_)
        self._valid[VELOCITY, self._wheels] = True
        self._valid.flags.writeable = False
        self.wheel_radius = float(wheel_radius)
        self.wheel_base = float(wheel_base)
        self.max_wheel_speed = max_wheel_speed

    @property
    def robot_joint_space(self) -> list[str]:
        """Return the joint space of the output."""
        return list(self._space)

    def reset(self, estimated_state: RobotState, setpoint_state: Optional[RobotState],
              t: float, **kwargs: Any) -> bool:
        """Do nothing (the controller has no state) and return True."""
        return True

    def forward(self, estimated_state: RobotState, setpoint_state: Optional[RobotState],
                t: float, **kwargs: Any) -> Optional[RobotState]:
        """
        Return the wheel velocities for the setpoint's root twist.

        None if there is no root setpoint, or the estimated state has no joints in this
        controller's joint space.
        """
        if setpoint_state is None or setpoint_state.root is None:
            return None
        joints = estimated_state.joints
        if joints is None or joints.space != self._space:
            return None
        root = setpoint_state.root
        linear = 0.0 if root.linear_velocity is None else float(root.linear_velocity[0])
        angular = 0.0 if root.angular_velocity is None else float(root.angular_velocity[2])
        if self.max_wheel_speed is not None:
            wheels = np.array(limited_wheel_velocities(
                linear, angular, self.wheel_radius, self.wheel_base, self.max_wheel_speed))
        else:
            wheels = np.array(wheel_velocities(linear, angular, self.wheel_radius,
                                               self.wheel_base))
        data = np.zeros((3, len(self._space)))
        data[VELOCITY, self._wheels] = wheels
        return RobotState(joints=JointState.trusted(self._space, data, self._valid))
