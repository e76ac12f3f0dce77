"""
Starting the suite: which nodes it has, their parameter files, and running them.

The launch files (``launch/*.launch.py``) and ``robot-sm up`` start the same nodes
(:mod:`~robot_sm.bringup.suite_nodes`) with parameters from the same ROS parameter files
(:mod:`~robot_sm.bringup.parameter_files`). ``robot-sm up`` (:mod:`~robot_sm.bringup.up`) runs
them in one process (:mod:`~robot_sm.bringup.suite_process`) for machines without ``ros2
launch``; :mod:`~robot_sm.bringup.running_suite` and :mod:`~robot_sm.bringup.running_fleet` run
a suite or a simulated fleet in this process for tests, demos and benchmarks.
"""
