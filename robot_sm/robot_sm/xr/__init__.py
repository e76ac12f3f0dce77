"""
Recorded XR controller sessions, no ROS: the file format and the scripted operator that made one.

:mod:`.session` holds both hands' poses, buttons and axes over time (a compressed ``.npz`` file);
:mod:`.scripted_operator` makes the session shipped as ``config/xr_session.npz``. The
``xr_replay`` node publishes a session on the ``xr/<hand>/...`` topics.
"""
