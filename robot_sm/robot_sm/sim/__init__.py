"""
Kinematic simulation for demos and tests.

A differential-drive base in a 2-D occupancy world, a range sensor that reveals the map, and an arm
whose joints track their commands.
"""

from robot_sm.sim.arm import FirstOrderJoints
from robot_sm.sim.diff_drive import DiffDriveBase
from robot_sm.sim.range_sensor import RangeSensor

__all__ = ['DiffDriveBase', 'FirstOrderJoints', 'RangeSensor']
