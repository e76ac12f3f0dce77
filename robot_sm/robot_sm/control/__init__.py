"""
Controller composition and command processing, in numpy, without ROS.

Two families of controllers share this package:

- **State controllers** (:class:`BaseController`): ``reset`` / ``forward(estimated, setpoint, t)``
  on :class:`RobotState` values, whose joint, link and site parts live in declared control spaces.
  Compose them with :class:`ParallelController` (outputs merged by
  :func:`combine_robot_states`), :class:`SequentialController` (each output is the next
  setpoint) and :class:`ControllerContainer` (switch at run time). Building blocks:
  :class:`DifferentialDriveController`, :class:`LowPassFilterController`,
  :class:`TrajectoryFollower` with :class:`Path` minimal-time trajectories.
- **Command controllers**: a :class:`ControlLaw` (:class:`JointLaw`,
  :class:`DifferentialDriveLaw`) turns clipped and scaled commands into sticky goals and goals into
  clipped controls, for one robot (:class:`CommandController`) or many at once
  (:class:`ControllerGroup`, vectorised, with stable member slots).

:class:`WheelCommander` is the mobile base's command path used by the ``base_controller`` node.
"""

from robot_sm.control.base_controller import BaseController
from robot_sm.control.combine import combine_robot_states
from robot_sm.control.command_controller import CommandController
from robot_sm.control.command_scaling import CommandScaling, make_scaling, resolve_limits
from robot_sm.control.composition import ParallelController, SequentialController
from robot_sm.control.control_law import (
    ControlLaw, Goals, JOINT_EFFORT, JOINT_POSITION, JOINT_VELOCITY, States)
from robot_sm.control.control_limits import ControlLimits, ControlType
from robot_sm.control.controller_container import ControllerContainer
from robot_sm.control.controller_group import ControllerGroup, GroupControl
from robot_sm.control.differential_drive import (
    DifferentialDriveController, limit_wheel_speeds, wheel_velocities)
from robot_sm.control.differential_drive_law import DifferentialDriveLaw
from robot_sm.control.group_registry import GroupRegistry
from robot_sm.control.joint_law import JointLaw
from robot_sm.control.joint_state import JointState
from robot_sm.control.low_pass_filter import LowPassFilterController
from robot_sm.control.path import MinimalTimeJointTrajectory, Path
from robot_sm.control.robot_state import RobotState
from robot_sm.control.root_state import RootState
from robot_sm.control.spatial_state import SpatialState
from robot_sm.control.trajectory import Trajectory
from robot_sm.control.trajectory_follower import TrajectoryFollower
from robot_sm.control.wheel_commander import WheelCommander

__all__ = [
    'BaseController', 'combine_robot_states', 'CommandController', 'CommandScaling',
    'ControlLaw', 'ControlLimits', 'ControllerContainer', 'ControllerGroup', 'ControlType',
    'DifferentialDriveController', 'DifferentialDriveLaw', 'Goals', 'GroupControl',
    'GroupRegistry', 'JOINT_EFFORT', 'JOINT_POSITION', 'JOINT_VELOCITY', 'JointLaw',
    'JointState', 'limit_wheel_speeds', 'LowPassFilterController', 'make_scaling',
    'MinimalTimeJointTrajectory', 'ParallelController', 'Path', 'resolve_limits', 'RobotState',
    'RootState', 'SequentialController', 'SpatialState', 'States', 'Trajectory',
    'TrajectoryFollower', 'WheelCommander', 'wheel_velocities',
]
