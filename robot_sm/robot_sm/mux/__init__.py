"""
Velocity arbitration core of the robot control mux: modes, inputs and locks, e-stop latch.

Pure Python with time passed in as float seconds; the ``robot_control_mux`` node translates ROS
messages and services into calls on :class:`ControlMux`.
"""

from robot_sm.mux.config import (
    MUX_PARAMETERS,
    MuxConfig,
    SUPERVISOR_HEARTBEAT,
    TELEOP_TIMEOUT_MODES,
    velocity_inputs,
)
from robot_sm.mux.control_mux import ControlMux
from robot_sm.mux.input_statistics import InputStatistics
from robot_sm.mux.inputs import (
    AUTONOMY,
    INPUT_PARAMETERS,
    INPUT_REQUIRED,
    Lock,
    LOCK_PARAMETERS,
    LOCK_REQUIRED,
    TELEOPERATION,
    VelocityInput,
)
from robot_sm.mux.joystick import JoystickActivity
from robot_sm.mux.status import Answer, InputReport, Level, Mode, MuxState, MuxStatus
from robot_sm.mux.velocity import Velocity, ZERO

__all__ = [
    'Answer', 'AUTONOMY', 'ControlMux', 'INPUT_PARAMETERS', 'INPUT_REQUIRED', 'InputReport',
    'InputStatistics', 'JoystickActivity', 'Level', 'Lock', 'LOCK_PARAMETERS', 'LOCK_REQUIRED',
    'Mode', 'MUX_PARAMETERS', 'MuxConfig', 'MuxState', 'MuxStatus', 'SUPERVISOR_HEARTBEAT',
    'TELEOP_TIMEOUT_MODES', 'TELEOPERATION', 'Velocity', 'velocity_inputs', 'VelocityInput',
    'ZERO',
]
