"""
Trajectories in joint space, and the controller that plays them against the caller's clock.

A :class:`Trajectory` gives a desired robot state for every time from 0 to its duration; it must
be continuous in time (interpolate between its samples), since the control loop samples it at
whatever times it runs. :meth:`Path.to_minimal_time_joint_trajectory` times a piecewise-linear
joint-space path so that the robot stops at every waypoint and, on every segment, all joints
start and finish together (the path keeps its straight-line shape in joint space) in the least
time that the joint velocity and acceleration limits allow: a trapezoidal speed profile, or a
triangular one when the segment is too short to reach the speed limit.

:class:`TrajectoryFollower`: ``set_trajectory``, then ``reset`` (which records the start time),
then ``forward`` every step. Outside [start, start + duration] the trajectory is finished: it is
dropped and ``forward`` returns None until a new one is set and the follower reset again.
"""

from abc import ABC, abstractmethod
from typing import Any, Optional, Sequence

import numpy as np

from robot_sm_control.arrays import as_float_array, as_vector, FloatArray, frozen
from robot_sm_control.controllers import Controller
from robot_sm_control.states import JointState, RobotState


class Trajectory(ABC):
    """A continuous-time desired state, defined from time 0 to :attr:`duration` seconds."""

    @property
    @abstractmethod
    def duration(self) -> float:
        """Length of the trajectory in seconds."""

    @abstractmethod
    def get_target_state(self, time: float) -> Optional[RobotState]:
        """Return the desired state ``time`` seconds after the start, or None if undefined."""


class Path:
    """A path in joint space: waypoints joined by straight lines."""

    def __init__(self, waypoints: Any) -> None:
        """
        Store ``waypoints``, an (M, n_joints) array.

        :raises ValueError: if it is not a non-empty 2-D array of finite numbers.
        """
        array = as_float_array(waypoints, 'waypoints')
        if array.ndim != 2 or 0 in array.shape:
            raise ValueError(f'waypoints: must be a non-empty 2-D array, got shape {array.shape}')
        if not np.isfinite(array).all():
            raise ValueError('waypoints: must be finite')
        self._waypoints = frozen(array)

    @property
    def waypoints(self) -> FloatArray:
        """Waypoints, an (M, n_joints) read-only array."""
        return self._waypoints

    def to_minimal_time_joint_trajectory(
            self, max_velocities: Any, max_accelerations: Any, robot_joint_space: Sequence[str],
            active_joints: Sequence[str], rel_tol: float = 1e-6,
            abs_tol: float = 1e-10) -> 'MinimalTimeJointTrajectory':
        """
        Return the minimal-time, rest-to-rest trajectory through the waypoints.

        ``active_joints`` names the joint of each waypoint column in ``robot_joint_space``.

        :raises ValueError: see :class:`MinimalTimeJointTrajectory`.
        """
        return MinimalTimeJointTrajectory(self, max_velocities, max_accelerations,
                                          robot_joint_space, active_joints, rel_tol, abs_tol)


class MinimalTimeJointTrajectory(Trajectory):
    """Rest-to-rest, joint-synchronised, minimal-time timing of a :class:`Path`."""

    def __init__(self, path: Path, max_velocities: Any, max_accelerations: Any,
                 robot_joint_space: Sequence[str], active_joints: Sequence[str],
                 rel_tol: float = 1e-6, abs_tol: float = 1e-10) -> None:
        """
        Time ``path`` under per-joint velocity and acceleration limits.

        :raises ValueError: if the limits are not 1-D, positive and one per joint, the active
            joints are not one per column and in the joint space, there are fewer than two
            waypoints, a tolerance is not positive, or two consecutive waypoints are equal within
            the tolerances.
        """
        waypoints = path.waypoints
        count, joints = waypoints.shape
        velocity = as_vector(max_velocities, 'max_velocities', joints)
        acceleration = as_vector(max_accelerations, 'max_accelerations', joints)
        if not (velocity > 0).all():
            raise ValueError(f'max_velocities: must all be > 0, got {velocity}')
        if not (acceleration > 0).all():
            raise ValueError(f'max_accelerations: must all be > 0, got {acceleration}')
        if len(active_joints) != joints:
            raise ValueError(f'active_joints: must name one joint per waypoint column '
                             f'({joints}), got {len(active_joints)}')
        if count < 2:
            raise ValueError('path: needs at least 2 waypoints')
        if not (rel_tol > 0 and abs_tol > 0):
            raise ValueError(f'rel_tol and abs_tol must be > 0, got {rel_tol}, {abs_tol}')
        for i in range(count - 1):
            if np.allclose(waypoints[i], waypoints[i + 1], rtol=rel_tol, atol=abs_tol):
                raise ValueError(f'waypoints {i} and {i + 1} are equal within the tolerances: '
                                 f'{waypoints[i]} and {waypoints[i + 1]}')
        # Checks the joint names now rather than at the first sample.
        JointState.from_name(robot_joint_space, positions=(list(active_joints), waypoints[0]))
        self._space = list(robot_joint_space)
        self._active = list(active_joints)
        self._starts = waypoints[:-1]
        self._deltas = np.diff(waypoints, axis=0)
        distance = np.abs(self._deltas)
        # Per segment: p from the slowest joint at its speed limit, q from its acceleration.
        speed_bound = np.max(2.0 * distance / velocity, axis=1)
        accel_bound = np.max(4.0 * distance / acceleration, axis=1)
        triangular = speed_bound < np.sqrt(accel_bound)
        self._p = np.where(triangular, np.sqrt(accel_bound), speed_bound)
        self._q = np.where(triangular, np.sqrt(accel_bound), accel_bound / speed_bound)
        self._segment_durations = frozen((self._p + self._q) / 2.0)
        self._switch_times = np.concatenate(([0.0], np.cumsum(self._segment_durations)))
        self._duration = float(self._switch_times[-1])

    @property
    def duration(self) -> float:
        """Total time from the first waypoint to the last, in seconds."""
        return self._duration

    @property
    def segment_durations(self) -> FloatArray:
        """Time of each segment, in seconds."""
        return self._segment_durations

    def sample(self, time: float) -> tuple[FloatArray, FloatArray]:
        """
        Return the joint positions and velocities at ``time`` (clamped to [0, duration]).

        :raises ValueError: if ``time`` is not finite.
        """
        if not np.isfinite(time):
            raise ValueError(f'time must be finite, got {time}')
        time = min(max(float(time), 0.0), self._duration)
        segment = int(np.searchsorted(self._switch_times, time, side='right')) - 1
        segment = min(max(segment, 0), len(self._segment_durations) - 1)
        tau = time - self._switch_times[segment]
        p, q = self._p[segment], self._q[segment]
        total = self._segment_durations[segment]
        # Normalised progress s in [0, 1]: accelerate for q/2, coast, decelerate for q/2.
        accel, top_speed, ramp = 4.0 / (p * q), 2.0 / p, q / 2.0
        if tau <= ramp:
            progress, rate = 0.5 * accel * tau ** 2, accel * tau
        elif tau < total - ramp:
            progress, rate = 0.5 * accel * ramp ** 2 + top_speed * (tau - ramp), top_speed
        else:
            remaining = max(total - tau, 0.0)
            progress, rate = 1.0 - 0.5 * accel * remaining ** 2, accel * remaining
        delta = self._deltas[segment]
        return self._starts[segment] + delta * progress, delta * rate

    def get_target_state(self, time: float) -> Optional[RobotState]:
        """Return positions and velocities of the active joints at ``time`` (clamped)."""
        positions, velocities = self.sample(time)
        return RobotState(joints=JointState.from_name(
            self._space, positions=(self._active, positions),
            velocities=(self._active, velocities)))


class TrajectoryFollower(Controller):
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
