"""
robot_sm_control: controllers you compose, in numpy, without ROS.

Two families of controllers share this package:

- **State controllers** (:mod:`.controllers`): ``reset`` / ``forward(estimated, setpoint, t)``
  on :class:`RobotState` values (:mod:`.states`, :mod:`.spatial`), whose joint, link and site
  parts live in declared control spaces. Compose them with :class:`ParallelController`,
  :class:`SequentialController` and :class:`ControllerContainer`; building blocks:
  :class:`DifferentialDriveController`, :class:`LowPassFilterController`, and
  :class:`TrajectoryFollower` with :class:`Path` minimal-time trajectories
  (:mod:`.trajectories`).
- **Command controllers** (:mod:`.commands`): a control law (:mod:`.laws`: :class:`JointLaw`,
  :class:`DifferentialDriveLaw`) behind command limits (:mod:`.limits`) turns commands into
  sticky goals and goals into clipped controls, for one robot (:class:`CommandController`) or
  many at once (:class:`ControllerGroup`, vectorised, with stable member slots).

Bad input raises at once: ``ValueError`` naming the argument (:mod:`.arrays` checks shapes,
NaN and names), ``KeyError`` / ``LookupError`` for unknown controllers or members.
"""

from robot_sm_control.commands import CommandController, ControllerGroup, GroupControl
from robot_sm_control.controllers import (
    Controller,
    ControllerContainer,
    DifferentialDriveController,
    limited_wheel_velocities,
    low_pass_weight,
    LowPassFilterController,
    ParallelController,
    SequentialController,
    wheel_velocities,
)
from robot_sm_control.laws import (
    ControlLaw, DifferentialDriveLaw, Goals, JOINT_EFFORT, JOINT_POSITION, JOINT_VELOCITY,
    JointLaw, States)
from robot_sm_control.limits import ControlLimits, ControlType
from robot_sm_control.spatial import SpatialState
from robot_sm_control.states import combine_robot_states, JointState, RobotState, RootState
from robot_sm_control.trajectories import (
    MinimalTimeJointTrajectory, Path, Trajectory, TrajectoryFollower)

__all__ = [
    'combine_robot_states', 'CommandController', 'ControlLaw', 'ControlLimits', 'Controller',
    'ControllerContainer', 'ControllerGroup', 'ControlType', 'DifferentialDriveController',
    'DifferentialDriveLaw', 'Goals', 'GroupControl', 'JOINT_EFFORT', 'JOINT_POSITION',
    'JOINT_VELOCITY', 'JointLaw', 'JointState', 'limited_wheel_velocities', 'low_pass_weight',
    'LowPassFilterController', 'MinimalTimeJointTrajectory', 'ParallelController', 'Path',
    'RobotState', 'RootState', 'SequentialController', 'SpatialState', 'States', 'Trajectory',
    'TrajectoryFollower', 'wheel_velocities',
]
