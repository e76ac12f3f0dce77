"""
The state interface's :class:`~robot_sm.statemachine.context.Context` for plugin states.

:class:`RosEndpoints` makes the clients, publishers and subscriptions states ask for, once each,
and shares them between states; :class:`StateContext` is one plugin's view: its parameters, the
suite's typed services and the generic calls for services, actions and topics outside the suite,
named by type strings with requests given as dictionaries.
"""

from types import SimpleNamespace
from typing import Any, Callable, Dict, Mapping, Optional, Tuple

from action_msgs.msg import GoalStatus as ActionStatus
from rclpy.node import Node
from rclpy.qos import QoSProfile
from robot_sm.nodes.latest_message import LatestMessage
from robot_sm.nodes.message_fields import fill, message_type
from robot_sm.qos import COMMAND_OUT, EVENTS, SENSOR, SERVICES, STATE
from robot_sm.statemachine.calls import PendingCall, PendingGoal
from robot_sm.statemachine.context import Logger
from robot_sm.statemachine.suite_port import SuitePort

#: Names of the final statuses of action goals.
ACTION_STATUS = {ActionStatus.STATUS_SUCCEEDED: 'succeeded', ActionStatus.STATUS_CANCELED:
                 'canceled', ActionStatus.STATUS_ABORTED: 'aborted by the action server'}
QOS: Dict[str, QoSProfile] = {'command': COMMAND_OUT, 'state': STATE, 'sensor': SENSOR,
                              'default': EVENTS}


def action_outcome(status: int, result: Any) -> str:
    """
    Say how an action goal ended: its status, and the result's error, if it has one.

    Nav2's results carry ``error_code`` and ``error_msg`` (why a goal was aborted).
    """
    text = ACTION_STATUS.get(status, f'status {status}')
    code, reason = getattr(result, 'error_code', 0), getattr(result, 'error_msg', '')
    if status == ActionStatus.STATUS_SUCCEEDED or not (code or reason):
        return text
    return f'{text} (error_code {code}: {reason})' if reason else f'{text} (error_code {code})'


def failure(future: Any) -> Optional[str]:
    """Return what went wrong with a finished rclpy future, or None if it has a result."""
    error = future.exception()
    return None if error is None else f'{type(error).__name__}: {error}'


class RosEndpoints:
    """What the states share of the node: clients, publishers and subscriptions, made once."""

    def __init__(self, node: Node, clock: Callable[[], float], service_timeout: float) -> None:
        self.node = node
        self.clock = clock
        self.service_timeout = service_timeout
        self._clients: Dict[Tuple[str, str], Any] = {}
        self._publishers: Dict[Tuple[str, str], Any] = {}
        self._subscriptions: Dict[Tuple[str, str], LatestMessage] = {}

    def call(self, service: str, srv_type: str, request: Optional[Mapping[str, Any]],
             timeout: Optional[float]) -> PendingCall[Any]:
        """Start a call of ``service``; the answer completes the returned call."""
        pending: PendingCall[Any] = PendingCall(
            service, self.clock, self.service_timeout if timeout is None else timeout)
        try:
            key = (service, srv_type)
            if key not in self._clients:
                self._clients[key] = self.node.create_client(message_type(srv_type), service,
                                                             qos_profile=SERVICES)
            client = self._clients[key]
            message = fill(client.srv_type.Request(), request or {})
        except Exception as error:  # noqa: B902 - a bad type or field is the state's mistake
            pending.fail_with(f'cannot build the request: {type(error).__name__}: {error}')
            return pending
        if not client.service_is_ready():
            pending.fail_with('service not available')
            return pending

        def done(finished: Any) -> None:
            error = failure(finished)
            if error is not None:
                pending.fail_with(error)
            else:
                pending.complete(finished.result())
        client.call_async(message).add_done_callback(done)
        return pending

    def action_client(self, action: str, action_type: str) -> Any:
        """Return the shared client of ``action``."""
        key = (action, action_type)
        if key not in self._clients:
            from rclpy.action import ActionClient
            self._clients[key] = ActionClient(self.node, message_type(action_type), action)
        return self._clients[key]

    def send_goal(self, action: str, action_type: str, fields: Mapping[str, Any],
                  timeout: Optional[float]) -> PendingGoal:
        """Send a goal to ``action``; acceptance and result complete the returned goal."""
        pending = PendingGoal(action, self.clock,
                              self.service_timeout if timeout is None else timeout)
        try:
            client = self.action_client(action, action_type)
            goal = fill(message_type(action_type).Goal(), fields)
        except Exception as error:  # noqa: B902 - a bad type or field is the state's mistake
            pending.fail_with(f'cannot build the goal: {type(error).__name__}: {error}')
            return pending
        if not client.server_is_ready():
            pending.fail_with('action server not available')
            return pending

        def on_result(finished: Any) -> None:
            error = failure(finished)
            if error is not None:
                pending.fail_with(error)
                return
            status, result = finished.result().status, finished.result().result
            pending.complete(SimpleNamespace(
                success=status == ActionStatus.STATUS_SUCCEEDED,
                message=action_outcome(status, result), status=status, result=result))

        def on_handle(finished: Any) -> None:
            error = failure(finished)
            if error is not None:
                pending.fail_with(error)
                return
            handle = finished.result()
            if not handle.accepted:
                pending.fail_with('goal rejected by the action server')
                return
            pending.accept(handle.cancel_goal_async)
            handle.get_result_async().add_done_callback(on_result)

        def on_feedback(message: Any) -> None:
            pending.feedback = message.feedback

        client.send_goal_async(goal, feedback_callback=on_feedback).add_done_callback(on_handle)
        return pending

    def publisher(self, topic: str, msg_type: str, qos: str) -> Any:
        """Return the shared publisher of ``topic``."""
        key = (topic, msg_type)
        if key not in self._publishers:
            self._publishers[key] = self.node.create_publisher(message_type(msg_type), topic,
                                                               QOS[qos])
        return self._publishers[key]

    def subscribe(self, topic: str, msg_type: str, qos: str) -> LatestMessage:
        """Return the shared latest-message subscription of ``topic``."""
        key = (topic, msg_type)
        if key not in self._subscriptions:
            latest = LatestMessage(self.clock)
            self.node.create_subscription(message_type(msg_type), topic, latest, QOS[qos])
            self._subscriptions[key] = latest
        return self._subscriptions[key]


class StateContext:
    """The :class:`~robot_sm.statemachine.context.Context` of one plugin's states."""

    def __init__(self, endpoints: RosEndpoints, suite: SuitePort, map_frame: str,
                 parameters: Mapping[str, Any], plugin: str) -> None:
        """Give ``plugin``'s states ``parameters`` (``{'name' or 'Plugin.name': value}``)."""
        self._endpoints = endpoints
        self._suite = suite
        self._parameters = parameters
        self._plugin = plugin
        self.map_frame = map_frame

    @property
    def logger(self) -> Logger:
        """Return the node's logger."""
        return self._endpoints.node.get_logger()

    @property
    def suite(self) -> SuitePort:
        """Return the suite's own services."""
        return self._suite

    def now(self) -> float:
        """Return the time for timeouts in seconds (sim time when ``use_sim_time``)."""
        return self._endpoints.clock()

    def ros_time(self) -> float:
        """Return the node's ROS time in seconds, for message stamps."""
        return self._endpoints.node.get_clock().now().nanoseconds * 1e-9

    def parameter(self, name: str) -> Any:
        """Return ``<plugin>.<name>``, or the node's own ``name``."""
        scoped = f'{self._plugin}.{name}'
        return self._parameters[scoped if scoped in self._parameters else name]

    def call(self, service: str, srv_type: str, request: Optional[Mapping[str, Any]] = None,
             timeout: Optional[float] = None) -> PendingCall[Any]:
        """Start a service call; poll the returned call on later ticks."""
        return self._endpoints.call(service, srv_type, request, timeout)

    def send_goal(self, action: str, action_type: str, goal: Mapping[str, Any],
                  timeout: Optional[float] = None) -> PendingGoal:
        """Send an action goal; poll the returned goal on later ticks."""
        return self._endpoints.send_goal(action, action_type, goal, timeout)

    def action_ready(self, action: str, action_type: str) -> bool:
        """Return whether ``action`` has a server now."""
        return bool(self._endpoints.action_client(action, action_type).server_is_ready())

    def publisher(self, topic: str, msg_type: str, qos: str = 'default') -> Any:
        """Return the shared publisher of ``topic``."""
        return self._endpoints.publisher(topic, msg_type, qos)

    def subscribe(self, topic: str, msg_type: str, qos: str = 'default') -> LatestMessage:
        """Return the shared latest-message subscription of ``topic``."""
        return self._endpoints.subscribe(topic, msg_type, qos)
