"""
Kinematic simulation for demos and tests.

A differential-drive base (or a fleet of them, stepped as one batch) in a 2-D occupancy world,
a range sensor that reveals the map, and a URDF arm whose joints follow their commands like
position-controlled servos.
"""

from robot_sm.sim.arm import ServoJoints
from robot_sm.sim.arm_model import ArmModel, LinkTransform
from robot_sm.sim.diff_drive import BASE_PARAMETERS, BaseSettings, DiffDriveBase
from robot_sm.sim.fleet_bases import FleetBases
from robot_sm.sim.range_sensor import RangeSensor, SENSOR_PARAMETERS, SensorSettings

__all__ = ['ArmModel', 'BASE_PARAMETERS', 'BaseSettings', 'DiffDriveBase', 'FleetBases',
           'LinkTransform', 'RangeSensor', 'SENSOR_PARAMETERS', 'SensorSettings', 'ServoJoints']
