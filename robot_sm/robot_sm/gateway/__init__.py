"""
The command gateway's core: operators' commands, checked, planned and audited in one place.

Every operator command reaches the suite as a :class:`~robot_sm.gateway.request.Request`
(who, what, arguments) at one service, ``robot_sm/command``, served by the state interface.
This package holds what is decided there without ROS: the checks of the arguments
(:mod:`.request`), the policy of starts (:mod:`.starts`: a start made while the mux is STOPPED
selects AUTONOMOUS for it, and a refused start is undone). ``robot_sm.nodes.command_gateway``
translates ROS to these calls.
"""
