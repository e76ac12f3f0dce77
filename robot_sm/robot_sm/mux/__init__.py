"""
Velocity arbitration core of the robot control mux: modes, timeouts, e-stop latch, sanitising.

Pure Python with time passed in as float seconds; the ``robot_control_mux`` node translates ROS
messages and services into calls on :class:`ControlMux`.
"""

from robot_sm.mux.config import (
    AUTONOMY,
    MUX_PARAMETERS,
    MuxConfig,
    SUPERVISOR_HEARTBEAT,
    TELEOP_TIMEOUT_MODES,
    TELEOPERATION,
    velocity_inputs,
    VelocityInput,
)
from robot_sm.mux.control_mux import ControlMux
from robot_sm.mux.input_statistics import InputStatistics
from robot_sm.mux.joystick import JoystickActivity
from robot_sm.mux.status import Answer, InputReport, Level, Mode, MuxState, MuxStatus
from robot_sm.mux.velocity import Velocity, ZERO

__all__ = [
    'Answer', 'AUTONOMY', 'ControlMux', 'InputReport', 'InputStatistics', 'JoystickActivity',
    'Level', 'Mode', 'MUX_PARAMETERS', 'MuxConfig', 'MuxState', 'MuxStatus',
    'SUPERVISOR_HEARTBEAT', 'TELEOP_TIMEOUT_MODES', 'TELEOPERATION', 'Velocity', 'velocity_inputs',
    'VelocityInput', 'ZERO',
]
