"""
Controllers on robot states, and how they compose: ``reset`` once, then ``forward`` every step.

A :class:`Controller` maps an estimated :class:`~robot_sm_control.states.RobotState` and an
optional setpoint to a desired state. It takes the caller's clock ``t`` (seconds, simulated or
real) as an argument and never reads a clock itself. :class:`ParallelController` runs children
side by side and merges their outputs, :class:`SequentialController` chains them (each output is
the next one's setpoint), :class:`ControllerContainer` switches between them at run time; all
three are controllers, so they nest. Building blocks for a mobile base:
:class:`DifferentialDriveController` and :class:`LowPassFilterController`, whose arithmetic
(:func:`wheel_velocities`, :func:`limited_wheel_velocities`, :func:`low_pass_weight`) is also
there for callers that need it without robot states.

Differential-drive kinematics, for a base moving forward at ``v`` (m/s) while turning at ``w``
(rad/s, counter-clockwise positive, REP-103), with wheel radius ``r`` and wheel separation ``b``::

    left  = (2 v - w b) / (2 r)        right = (2 v + w b) / (2 r)        (rad/s)

The low-pass filter: ``filtered = alpha * input + (1 - alpha) * filtered``, ``alpha`` per call,
or per ``period`` when one is given (each call then uses ``1 - (1 - alpha) ** (dt / period)``
for the time ``dt`` since the previous one, so the time constant does not depend on how often it
is called).
"""

from abc import ABC, abstractmethod
import math
from typing import Any, Dict, Generic, Hashable, List, Mapping, Optional, Sequence, Tuple, TypeVar

import numpy as np

from robot_sm_control.arrays import control_space, FloatArray, indices_of
from robot_sm_control.states import (
    combine_robot_states, JointState, RobotState, VELOCITY)

DEFAULT_WHEEL_JOINTS = ('left_wheel_joint', 'right_wheel_joint')

KeyT = TypeVar('KeyT', bound=Hashable)


class Controller(ABC):
    """A controller: ``reset`` once before running, then ``forward`` every control step."""

    @abstractmethod
    def reset(self, estimated_state: RobotState, setpoint_state: Optional[RobotState],
              t: float, **kwargs: Any) -> bool:
        """
        Bring the controller to a safe initial state; return True when it is ready.

        Called once immediately before the controller starts running (and again whenever it is
        switched in by a :class:`ControllerContainer`).
        """

    @abstractmethod
    def forward(self, estimated_state: RobotState, setpoint_state: Optional[RobotState],
                t: float, **kwargs: Any) -> Optional[RobotState]:
        """Return the desired state for this step, or None if no valid output can be made."""


def _children(controllers: Sequence[Controller], kind: str) -> List[Controller]:
    children = list(controllers)
    if len(children) < 2:
        raise ValueError(f'{kind} needs at least 2 controllers, got {len(children)}')
    for child in children:
        if not isinstance(child, Controller):
            raise ValueError(f'{kind}: {child!r} is not a Controller')
    return children


class _Composite(Controller):
    """Children reset in order; the first one that fails stops the reset."""

    def __init__(self, controllers: Sequence[Controller]) -> None:
        self._controllers = _children(controllers, type(self).__name__)

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


class ControllerContainer(Controller, Generic[KeyT]):
    """One active controller out of several, switched on the next ``forward``."""

    def __init__(self, controller_options: Mapping[KeyT, Controller],
                 initial_controller_selection: KeyT) -> None:
        """
        Hold ``controller_options``, starting (and restarting on reset) with the initial key.

        Nothing is reset here.

        :raises ValueError: if there are no controllers or one is not a Controller.
        :raises KeyError: if the initial key is not one of the options.
        """
        if not controller_options:
            raise ValueError('ControllerContainer needs at least one controller')
        for key, controller in controller_options.items():
            if not isinstance(controller, Controller):
                raise ValueError(f'ControllerContainer: option {key!r} is not a Controller')
        if initial_controller_selection not in controller_options:
            raise KeyError(f'initial controller {initial_controller_selection!r} is not one of '
                           f'{list(controller_options)}')
        self._options: Dict[KeyT, Controller] = dict(controller_options)
        self._initial = initial_controller_selection
        self._active = initial_controller_selection
        self._next = initial_controller_selection
        self._switch_pending_reset = False

    def reset(self, estimated_state: RobotState, setpoint_state: Optional[RobotState],
              t: float, **kwargs: Any) -> bool:
        """Select the initial controller again (cancelling a pending switch) and reset it only."""
        self._active = self._next = self._initial
        self._switch_pending_reset = False
        return self._options[self._initial].reset(estimated_state, setpoint_state, t, **kwargs)

    def set_next_controller(self, key: KeyT) -> None:
        """
        Request a switch to ``key`` on the next ``forward``; nothing is reset or run now.

        :raises LookupError: if ``key`` is not one of the options.
        """
        if key not in self._options:
            raise LookupError(f'no controller {key!r}; options are {list(self._options)}')
        self._next = key

    def forward(self, estimated_state: RobotState, setpoint_state: Optional[RobotState],
                t: float, **kwargs: Any) -> Optional[RobotState]:
        """
        Switch if requested (resetting the new controller first), then run the active one.

        :raises RuntimeError: if the newly selected controller fails to reset. The switch stays
            recorded (it is the active controller), but it is never run un-reset: every later
            ``forward`` tries its reset again and raises until it succeeds.
        """
        if self._next != self._active:
            self._active = self._next
            self._switch_pending_reset = True
        if self._switch_pending_reset:
            if not self._options[self._active].reset(
                    estimated_state, setpoint_state, t, **kwargs):
                raise RuntimeError(f'controller {self._active!r} failed to reset on switching')
            self._switch_pending_reset = False
        return self._options[self._active].forward(estimated_state, setpoint_state, t, **kwargs)

    @property
    def active(self) -> KeyT:
        """Return the key of the active controller (a requested switch happens in ``forward``)."""
        return self._active


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


class DifferentialDriveController(Controller):
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


def low_pass_weight(alpha: float, period: Optional[float], elapsed: float) -> float:
    """Return the weight of a new input ``elapsed`` seconds after the previous one."""
    if period is None:
        return alpha
    return 1.0 - (1.0 - alpha) ** (max(elapsed, 0.0) / period)


class LowPassFilterController(Controller):
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
        elapsed = t - self._last_t
        self._last_t = t
        return low_pass_weight(self.alpha, self.period, elapsed)

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
