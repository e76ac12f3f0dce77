"""
Occupancy grids: the map data type shared by the simulation, navigation and exploration cores.

Cells follow ``nav_msgs/OccupancyGrid``: ``data[row, col]`` with row 0 at the map origin (lowest
y), values -1 (unknown), 0 (free) to 100 (occupied).
"""

from robot_sm.grid.map_file import load_map, load_start_pose, load_start_poses, MapFileError
from robot_sm.grid.occupancy_grid import FREE, OccupancyGrid, OCCUPIED, UNKNOWN

__all__ = ['FREE', 'load_map', 'load_start_pose', 'load_start_poses', 'MapFileError', 'OCCUPIED',
           'OccupancyGrid', 'UNKNOWN']
