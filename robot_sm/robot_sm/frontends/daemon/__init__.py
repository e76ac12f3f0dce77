"""
The ``robot-sm`` daemon: one long-lived process per user and environment that does the work.

Every ``robot-sm`` command used to be a new process that started rclpy, created a DDS participant
and waited for discovery before it could ask anything. The daemon keeps one participant, with
a :class:`~robot_sm.client.SuiteClient` per namespace and a :class:`~robot_sm.client.FleetClient`
per fleet already discovered (:mod:`~robot_sm.frontends.daemon.held_clients`), and runs the very
verb functions of :mod:`robot_sm.frontends.cli_verbs` for the command, capturing what they print
(:mod:`~robot_sm.frontends.daemon.capture`): a command through the daemon prints what it would
print by itself and exits with the same code.

- :mod:`~robot_sm.frontends.daemon.protocol`: which daemon serves a caller (the environment that
  decides what a command reaches), where its socket is, and the lines on the socket;
- :mod:`~robot_sm.frontends.daemon.client`: the thin client ``robot-sm`` runs first
  (:mod:`robot_sm.frontends.command`), without rclpy or the parser: the daemon does the command,
  or says why this process is to do it;
- :mod:`~robot_sm.frontends.daemon.control`: ``robot-sm daemon start|stop|status``;
- :mod:`~robot_sm.frontends.daemon.server`: the daemon process (``python -m
  robot_sm.frontends.daemon.server``).
"""
