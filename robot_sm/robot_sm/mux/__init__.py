"""
Velocity arbitration core of the robot control mux: modes, timeouts, e-stop latch, sanitising.

Pure Python with time passed in as float seconds; the ``robot_control_mux`` node translates ROS
messages and services into calls on :class:`ControlMux`.
"""

from robot_sm.mux.control_mux import (
    Answer,
    ControlMux,
    InputReport,
    Level,
    Mode,
    MuxConfig,
    MuxState,
    MuxStatus,
    TELEOP_TIMEOUT_MODES,
)
from robot_sm.mux.input_statistics import InputStatistics
from robot_sm.mux.joystick import JoystickActivity
from robot_sm.mux.velocity import Velocity, ZERO

__all__ = [
    'Answer', 'ControlMux', 'InputReport', 'InputStatistics', 'JoystickActivity', 'Level', 'Mode',
    'MuxConfig', 'MuxState', 'MuxStatus', 'TELEOP_TIMEOUT_MODES', 'Velocity', 'ZERO',
]
