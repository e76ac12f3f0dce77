"""
``make demo``: the suite on the simulated robot, with pictures and recordings of what it did.

:mod:`~robot_sm.demo.main` runs the phases (waypoints, exploration, the arm, or a fleet),
:mod:`~robot_sm.demo.arm` and :mod:`~robot_sm.demo.fleet` the arm and fleet phases, and
:mod:`~robot_sm.demo.drawing` draws the maps and paths.
"""
