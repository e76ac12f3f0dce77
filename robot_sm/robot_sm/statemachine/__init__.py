"""
The state machine engine: RSM's state interface in plain Python.

The operating cycle is one table (:mod:`robot_sm.statemachine.cycle`);
:class:`~robot_sm.statemachine.machine.StateMachine` runs it with states derived from
:class:`~robot_sm.statemachine.base_state.BaseState`. Plugins come from the entry-point group
``robot_sm.states`` (:mod:`robot_sm.statemachine.registry`) and reach ROS only through the
injected :class:`~robot_sm.statemachine.context.Context` and its typed
:class:`~robot_sm.statemachine.suite_port.SuitePort`. Nothing here imports rclpy.
"""
