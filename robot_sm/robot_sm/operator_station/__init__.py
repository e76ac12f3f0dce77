"""
The operator's side of a robot_sm suite: presence (heartbeat) and the live view an operator keeps.

:mod:`~robot_sm.operator_station.presence_monitor` decides what the operator's indicator shows
(no rclpy); :mod:`~robot_sm.operator_station.presence` publishes the heartbeat and follows the
robot's answer on a node; :mod:`~robot_sm.operator_station.connect` is ``robot-sm connect``.
"""
