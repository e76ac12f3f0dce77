"""
The default plugin states: Navigation, CalculateGoal, MappingDummy, Spin and the routines.

Each is registered in the entry-point group ``robot_sm.states`` (see ``setup.py``) and chosen
by the state interface's ``navigation_plugin``, ``calculate_goal_plugin`` and
``mapping_plugin`` parameters, or by a waypoint's routine (``<Name>Routine``).
"""
