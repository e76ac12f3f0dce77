"""
What states may use of ROS: the context injected into every state.

The engine never imports rclpy. The state interface node implements :class:`Context` over
rclpy (``robot_sm.nodes.plugin_context``); tests implement it over plain Python. The suite's own
services are typed (:attr:`Context.suite`); for its own services, actions and topics a plugin
names the types as strings (``'std_srvs/srv/Trigger'``) and gives requests as dictionaries of
fields, so that it needs no ROS import either.
"""

from typing import Any, Mapping, Optional, Protocol

from robot_sm.statemachine.calls import PendingCall, PendingGoal
from robot_sm.statemachine.suite_port import SuitePort


class Logger(Protocol):
    """The subset of rclpy's logger states use."""

    def debug(self, message: str) -> Any:
        """Log a debug message."""

    def info(self, message: str) -> Any:
        """Log an informational message."""

    def warning(self, message: str) -> Any:
        """Log a warning."""

    def error(self, message: str) -> Any:
        """Log an error."""


class Publisher(Protocol):
    """A topic a state publishes on."""

    def publish(self, message: Any) -> None:
        """Send ``message``."""


class Subscription(Protocol):
    """The newest message on a topic, kept for the state to read on its ticks."""

    @property
    def latest(self) -> Any:
        """Return the newest message, or None before the first."""

    @property
    def received_at(self) -> Optional[float]:
        """Return the time (state machine clock) the newest message arrived, or None."""


class Context(Protocol):
    """Everything a state reaches outside itself: time, logs, services, topics, parameters."""

    #: Frame of goals and poses (the state interface's ``map_frame``).
    map_frame: str

    @property
    def logger(self) -> Logger:
        """Give the node's logger."""

    @property
    def suite(self) -> SuitePort:
        """Give the suite's own services (service provider and mux), typed."""

    def now(self) -> float:
        """
        Return the time for timeouts in seconds: monotonic, or the ROS clock with sim time.

        Never a message stamp: in real time it counts from the computer's start.
        """

    def ros_time(self) -> float:
        """Return the node's ROS time in seconds (sim time with ``use_sim_time``), for stamps."""

    def parameter(self, name: str) -> Any:
        """
        Return parameter ``name`` of the state's plugin (declared as ``<plugin>.<name>``).

        Failing that, the state interface's own parameter ``name`` (``calculate_goal_plugin``,
        ``Spin.timeout``).
        """

    def call(self, service: str, srv_type: str, request: Optional[Mapping[str, Any]] = None,
             timeout: Optional[float] = None) -> PendingCall[Any]:
        """Start a call of a service outside the suite; poll it on later ticks."""

    def send_goal(self, action: str, action_type: str, goal: Mapping[str, Any],
                  timeout: Optional[float] = None) -> PendingGoal:
        """Send an action goal; poll the returned goal on later ticks."""

    def action_ready(self, action: str, action_type: str) -> bool:
        """Return True if a server of ``action`` is available now (does not wait)."""

    def publisher(self, topic: str, msg_type: str, qos: str = 'default') -> Publisher:
        """
        Give the publisher of ``topic`` (created once per topic and type, shared).

        ``qos`` is ``'command'`` (reliable, depth 1), ``'state'`` (transient local),
        ``'sensor'`` (best effort) or ``'default'``.
        """

    def subscribe(self, topic: str, msg_type: str, qos: str = 'default') -> Subscription:
        """Return the subscription to ``topic`` (created once and shared between states)."""
