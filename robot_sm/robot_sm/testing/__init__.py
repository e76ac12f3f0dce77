"""
What the tests and benchmarks share: nodes over real DDS, node processes, and the two-host rig.

:class:`~robot_sm.testing.harness.RosHarness` runs nodes in an isolated rclpy context and records,
publishes and calls through a probe node; :class:`~robot_sm.testing.node_process.NodeProcess`
runs a node in a process of its own; :mod:`~robot_sm.testing.two_host_rig` puts a robot and an
operator host on two network namespaces, and :mod:`~robot_sm.testing.topic_probe` echoes or
streams topics there. :mod:`~robot_sm.testing.reference_pages` keeps ``docs/<node>.md`` true to
the running nodes (``make docs``).
"""

from robot_sm.testing.harness import (
    DEFAULT_TIMEOUT,
    Recorder,
    RosHarness,
    SCHEDULING_SLACK,
    wait_until,
)
from robot_sm.testing.node_process import (
    free_udp_port,
    GLOBAL_TOPICS,
    NodeProcess,
    python_module_argv,
    ros_args,
)

__all__ = ['DEFAULT_TIMEOUT', 'free_udp_port', 'GLOBAL_TOPICS', 'NodeProcess',
           'python_module_argv', 'Recorder', 'RosHarness', 'ros_args', 'SCHEDULING_SLACK',
           'wait_until']
