"""
The web operator console (``robot-sm web``): one page for a phone or a laptop beside the robot.

One process serves it (aiohttp), with one rclpy context for the suite's client and its fleet
view. The page is plain HTML, CSS and JavaScript modules from ``static/`` (nothing fetched from
elsewhere); everything it shows is pushed over a WebSocket as it changes, and every control is a
call of :class:`robot_sm.client.SuiteClient`, as for ``robot-sm`` and the rqt panel.

- :mod:`~.main`: the command; :mod:`~.server`: routes and the server; :mod:`~.gate`: who may
  come in, and the security headers; :mod:`~.tokens`: tokens, sessions, failed attempts;
- :mod:`~.session`: one page's WebSocket; :mod:`~.heartbeat`: each page's heartbeat, and which
  ones the robot hears; :mod:`~.protocol`: what a page may send; :mod:`~.outbox`: what it is
  sent, and how often;
- :mod:`~.console`: the robots' channels and the worker lanes; :mod:`~.bridge`: the link to one
  suite; :mod:`~.actions`: what each control calls; :mod:`~.views`, :mod:`~.map_image`: the
  suite's messages as the page gets them;
- :mod:`~.drive`, :mod:`~.drive_link`: driving from a page (the joystick's velocities within the
  robot's limits, the zeros); :mod:`~.incident_watch`: the incidents the recorder kept;
- :mod:`~.events`, :mod:`~.event_feed`: the event timeline; :mod:`~.cycle_diagram`,
  :mod:`~.cycle_place`: the operating cycle drawn; :mod:`~.arm_view`, :mod:`~.arm_watch`: the
  arm under teleop.
"""
