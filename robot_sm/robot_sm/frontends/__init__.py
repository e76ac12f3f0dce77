"""
The front-ends an operator runs a robot_sm suite with, and the operator's presence.

``robot-sm`` on the command line (:mod:`~robot_sm.frontends.cli`, its verbs in
:mod:`~robot_sm.frontends.cli_verbs`), the rqt control panel (:mod:`~robot_sm.frontends.rqt`), and
operator presence: :mod:`~robot_sm.frontends.presence_monitor` decides what the operator's
indicator shows (no rclpy), :mod:`~robot_sm.frontends.presence` publishes the heartbeat and
follows the robot's answer on a node, and :mod:`~robot_sm.frontends.connect` is ``robot-sm
connect``. Every front-end operates the suite through :mod:`robot_sm.client`.
"""
