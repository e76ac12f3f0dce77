"""
The state machine engine: RSM's state interface in plain Python.

:class:`~robot_sm.statemachine.machine.StateMachine` runs states derived from
:class:`~robot_sm.statemachine.base_state.BaseState`; plugins come from the entry-point group
``robot_sm.states`` (:mod:`robot_sm.statemachine.registry`) and reach ROS only through the
injected :class:`~robot_sm.statemachine.port.Context`. Nothing here imports rclpy.
"""
