"""
The ``state_interface`` node: the state machine of the operating cycle on ROS.

It ticks :class:`~robot_sm.statemachine.machine.StateMachine` at ``update_frequency``, feeds it
the mux's operation mode and operators' simple goals, answers the start/stop services at once
(nothing blocks in a callback: states make asynchronous calls and poll them on their ticks), and
publishes the state's name on ``robot_sm/state_info`` (transient local) on every transition,
Boot's included, and how states ended on ``robot_sm/state_outcome``. After every tick it
publishes the supervisor heartbeat (``robot_sm/supervisor_heartbeat``): the mux stops autonomy
when it falls silent, so a dead or frozen state machine cannot leave the robot driving.

States reach ROS only through :class:`StateContext`, one per plugin, whose parameters are the
node's ``<plugin>.<name>`` parameters. Every installed plugin's parameters are declared and
validated at start.
"""

import importlib
import math
import sys
from types import SimpleNamespace
from typing import Any, Callable, Dict, List, Mapping, Optional, Tuple

from action_msgs.msg import GoalStatus as ActionStatus
from geometry_msgs.msg import Pose, PoseStamped
from rcl_interfaces.msg import ParameterDescriptor
from rclpy.node import Node
from rclpy.qos import QoSProfile
from robot_sm.nodes.node_parameters import declare_parameters
from robot_sm.nodes.runner import run_node, seconds_clock
from robot_sm.parameters import ConfigurationError, duration, Param, rate
from robot_sm.qos import COMMAND_OUT, EVENTS, HEARTBEAT, SENSOR, SERVICES, STATE
from robot_sm.quoting import quoted
from robot_sm.statemachine.base_state import StateParameter
from robot_sm.statemachine.calls import PendingCall, PendingGoal
from robot_sm.statemachine.constants import OperationMode, ROLE_PARAMETERS
from robot_sm.statemachine.machine import StateMachine
from robot_sm.statemachine.port import Logger
from robot_sm.statemachine.registry import PluginError, PluginRegistry, StateCreator
from robot_sm.statemachine.states import Idle
from robot_sm_msgs.msg import OperationMode as OperationModeMsg
from robot_sm_msgs.srv import SetOperationMode
from std_msgs.msg import Header, String
from std_srvs.srv import SetBool, Trigger


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


def _not_empty(value: str) -> Optional[str]:
    return None if value.strip() else 'must not be empty'


def parameters() -> List[Param]:
    """Return the specifications of the node's own parameters; plugins add more."""
    specs = [
        rate('update_frequency', 20.0, 'Ticks of the state machine per second (each also '
             'publishes the supervisor heartbeat).', 2.0, 1000.0),
        Param('map_frame', 'map', 'Frame of goals; simple goals in other frames are '
              'transformed with tf2.', check=_not_empty),
        Param('boot_up_service', '', 'std_srvs/SetBool service that must answer true before '
              'Boot ends (called with data: true); empty: Boot ends when the service '
              'provider and the mux answer.'),
        duration('service_timeout', 5.0, 'Time a state waits for a service answer.', 0.1,
                 600.0),
    ]
    for role, (name, default) in ROLE_PARAMETERS.items():
        specs.append(Param(name, default, f'Plugin state (entry point of robot_sm.states) for '
                                          f'the {role.value} state.', check=_not_empty))
    return specs


def _type(name: str) -> Any:
    """Return the message or service class named like ``std_srvs/srv/SetBool``."""
    package, kind, type_name = name.split('/')
    return getattr(importlib.import_module(f'{package}.{kind}'), type_name)


def _fill(message: Any, fields: Mapping[str, Any]) -> Any:
    """Set ``fields`` on ``message`` (nested dictionaries fill nested messages)."""
    for key, value in fields.items():
        if isinstance(value, Mapping):
            _fill(getattr(message, key), value)
        else:
            setattr(message, key, value)
    return message


def _failure(future: Any) -> Optional[str]:
    """Return what went wrong with a finished rclpy future, or None if it has a result."""
    error = future.exception()
    return None if error is None else f'{type(error).__name__}: {error}'


class _Latest:
    """The newest message on a topic and when it came."""

    def __init__(self, clock: Callable[[], float]) -> None:
        self._clock = clock
        self.latest: Any = None
        self.received_at: Optional[float] = None

    def __call__(self, message: Any) -> None:
        self.latest, self.received_at = message, self._clock()


class RosPort:
    """What the states share of the node: clients, publishers and subscriptions, made once."""

    def __init__(self, node: Node, clock: Callable[[], float], map_frame: str,
                 service_timeout: float) -> None:
        self.node = node
        self.clock = clock
        self.map_frame = map_frame
        self.service_timeout = service_timeout
        self._clients: Dict[Tuple[str, str], Any] = {}
        self._publishers: Dict[Tuple[str, str], Any] = {}
        self._subscriptions: Dict[Tuple[str, str], _Latest] = {}

    def client(self, service: str, srv_type: str) -> Any:
        key = (service, srv_type)
        if key not in self._clients:
            self._clients[key] = self.node.create_client(_type(srv_type), service,
                                                         qos_profile=SERVICES)
        return self._clients[key]

    def call(self, service: str, srv_type: str, request: Optional[Mapping[str, Any]],
             timeout: Optional[float]) -> PendingCall:
        pending = PendingCall(service, self.clock,
                              self.service_timeout if timeout is None else timeout)
        try:
            client = self.client(service, srv_type)
            message = _fill(client.srv_type.Request(), request or {})
        except Exception as error:  # noqa: B902 - a bad type or field is the state's mistake
            pending.fail_with(f'cannot build the request: {type(error).__name__}: {error}')
            return pending
        if not client.service_is_ready():
            pending.fail_with('service not available')
            return pending
        future = client.call_async(message)

        def done(finished: Any) -> None:
            error = _failure(finished)
            if error is not None:
                pending.fail_with(error)
            else:
                pending.complete(finished.result())
        future.add_done_callback(done)
        return pending

    def action_client(self, action: str, action_type: str) -> Any:
        key = (action, action_type)
        if key not in self._clients:
            from rclpy.action import ActionClient
            self._clients[key] = ActionClient(self.node, _type(action_type), action)
        return self._clients[key]

    def send_goal(self, action: str, action_type: str, fields: Mapping[str, Any],
                  timeout: Optional[float]) -> PendingGoal:
        pending = PendingGoal(action, self.clock,
                              self.service_timeout if timeout is None else timeout)
        try:
            client = self.action_client(action, action_type)
            goal = _fill(_type(action_type).Goal(), fields)
        except Exception as error:  # noqa: B902 - a bad type or field is the state's mistake
            pending.fail_with(f'cannot build the goal: {type(error).__name__}: {error}')
            return pending
        if not client.server_is_ready():
            pending.fail_with('action server not available')
            return pending

        def on_result(finished: Any) -> None:
            error = _failure(finished)
            if error is not None:
                pending.fail_with(error)
                return
            status, result = finished.result().status, finished.result().result
            pending.complete(SimpleNamespace(
                success=status == ActionStatus.STATUS_SUCCEEDED,
                message=action_outcome(status, result), status=status, result=result))

        def on_handle(finished: Any) -> None:
            error = _failure(finished)
            if error is not None:
                pending.fail_with(error)
                return
            handle = finished.result()
            if not handle.accepted:
                pending.fail_with('goal rejected by the action server')
                return
            pending.accept(handle.cancel_goal_async)
            handle.get_result_async().add_done_callback(on_result)

        client.send_goal_async(goal).add_done_callback(on_handle)
        return pending

    def publisher(self, topic: str, msg_type: str, qos: str) -> Any:
        key = (topic, msg_type)
        if key not in self._publishers:
            self._publishers[key] = self.node.create_publisher(_type(msg_type), topic, QOS[qos])
        return self._publishers[key]

    def subscribe(self, topic: str, msg_type: str, qos: str) -> _Latest:
        key = (topic, msg_type)
        if key not in self._subscriptions:
            latest = _Latest(self.clock)
            self.node.create_subscription(_type(msg_type), topic, latest, QOS[qos])
            self._subscriptions[key] = latest
        return self._subscriptions[key]


class StateContext:
    """The :class:`~robot_sm.statemachine.port.Context` of one plugin's states."""

    def __init__(self, port: RosPort, plugin: str) -> None:
        self._port = port
        self._plugin = plugin
        self.map_frame = port.map_frame

    @property
    def logger(self) -> Logger:
        """Return the node's logger."""
        return self._port.node.get_logger()

    def now(self) -> float:
        """Return the node's time in seconds (sim time when ``use_sim_time``)."""
        return self._port.clock()

    def parameter(self, name: str) -> Any:
        """Return ``<plugin>.<name>``, or the node's own ``name``."""
        node = self._port.node
        scoped = f'{self._plugin}.{name}'
        if self._plugin and node.has_parameter(scoped):
            return node.get_parameter(scoped).value
        return node.get_parameter(name).value

    def call(self, service: str, srv_type: str, request: Optional[Mapping[str, Any]] = None,
             timeout: Optional[float] = None) -> PendingCall:
        """Start a service call; poll the returned call on later ticks."""
        return self._port.call(service, srv_type, request, timeout)

    def service_ready(self, service: str, srv_type: str) -> bool:
        """Return whether ``service`` has a server now."""
        return bool(self._port.client(service, srv_type).service_is_ready())

    def send_goal(self, action: str, action_type: str, goal: Mapping[str, Any],
                  timeout: Optional[float] = None) -> PendingGoal:
        """Send an action goal; poll the returned goal on later ticks."""
        return self._port.send_goal(action, action_type, goal, timeout)

    def action_ready(self, action: str, action_type: str) -> bool:
        """Return whether ``action`` has a server now."""
        return bool(self._port.action_client(action, action_type).server_is_ready())

    def publisher(self, topic: str, msg_type: str, qos: str = 'default') -> Any:
        """Return the shared publisher of ``topic``."""
        return self._port.publisher(topic, msg_type, qos)

    def subscribe(self, topic: str, msg_type: str, qos: str = 'default') -> _Latest:
        """Return the shared latest-message subscription of ``topic``."""
        return self._port.subscribe(topic, msg_type, qos)

    def message(self, msg_type: str, **fields: Any) -> Any:
        """Return a new ``msg_type`` message with ``fields``."""
        return _fill(_type(msg_type)(), fields)


def _declare_plugin_parameters(node: Node, registry: PluginRegistry) -> None:
    """Declare ``<plugin>.<name>`` for every loadable plugin; refuse bad values."""
    for name in registry.names():
        try:
            state_class = registry.load(name)
        except PluginError as error:
            node.get_logger().error(f'{error}: its parameters are not declared')
            continue
        for spec in state_class.PARAMETERS:
            _declare_state_parameter(node, name, spec)


def _declare_state_parameter(node: Node, plugin: str, spec: StateParameter) -> None:
    full = f'{plugin}.{spec.name}'
    limits = []
    if spec.minimum is not None:
        limits.append(f"{'0 (off) or ' if spec.off else ''}>= {spec.minimum:g}")
    if spec.maximum is not None:
        limits.append(f'<= {spec.maximum:g}')
    descriptor = ParameterDescriptor(description=spec.description,
                                     additional_constraints='; '.join(limits),
                                     read_only=True, dynamic_typing=True)
    value = node.declare_parameter(full, spec.default, descriptor).value
    if isinstance(spec.default, float) and isinstance(value, int) \
            and not isinstance(value, bool):
        value = float(value)
    expected = type(spec.default)
    if value is None or (not isinstance(value, expected)
                         and not (expected is float and isinstance(value, int))):
        raise ConfigurationError(f"parameter '{full}' must be a {expected.__name__} "
                                 f'(got {quoted(value)})')
    problem = spec.problem(value)
    if problem:
        raise ConfigurationError(f"parameter '{full}' {problem}")


class StateInterface(Node):
    """Run the state machine: ticks, interrupts, operators' services, state publishing."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__('state_interface', **kwargs)
        config = declare_parameters(self, parameters())
        registry = PluginRegistry()
        _declare_plugin_parameters(self, registry)
        plugins = {role: config[name] for role, (name, _) in ROLE_PARAMETERS.items()}
        for role, plugin in plugins.items():
            if plugin not in registry.names():
                self.get_logger().error(
                    f"{ROLE_PARAMETERS[role][0]}: plugin '{plugin}' is not installed: the "
                    f'{role.value} state will fall back to Idle')
        self._seconds = seconds_clock(self)
        self._map_frame: str = config['map_frame']
        port = RosPort(self, self._seconds, self._map_frame, config['service_timeout'])
        self._port = port

        self._state_pub = self.create_publisher(String, 'robot_sm/state_info', STATE)
        self._outcome_pub = self.create_publisher(String, 'robot_sm/state_outcome', STATE)
        self._heartbeat_pub = self.create_publisher(Header, 'robot_sm/supervisor_heartbeat',
                                                    HEARTBEAT)
        self._heartbeat = Header()
        self._mode_client = self.create_client(SetOperationMode, 'robot_sm/set_operation_mode',
                                               qos_profile=SERVICES)
        creator = StateCreator(registry, plugins, lambda plugin: StateContext(port, plugin),
                               self.get_logger(), Idle, on_error=self._on_plugin_error)
        self.machine = StateMachine(creator, self.get_logger(),
                                    publish_state=self._publish_state,
                                    publish_outcome=self._publish_outcome,
                                    stop_robot=self._stop_robot)
        #: The tf2 buffer that goals in other frames are transformed with (None without tf2).
        self.tf_buffer: Any = None
        self._tf_missing = self._listen_to_tf()

        self.create_subscription(OperationModeMsg, 'robot_sm/operation_mode',
                                 self._on_operation_mode, STATE)
        self.create_subscription(PoseStamped, 'robot_sm/simple_goal', self._on_simple_goal,
                                 EVENTS)
        self.create_service(SetBool, 'robot_sm/start_stop_exploration',
                            self._on_start_stop_exploration, qos_profile=SERVICES)
        self.create_service(SetBool, 'robot_sm/start_stop_waypoint_following',
                            self._on_start_stop_waypoint_following, qos_profile=SERVICES)
        self.create_service(Trigger, 'robot_sm/state_info', self._on_state_info,
                            qos_profile=SERVICES)
        self.create_service(Trigger, 'robot_sm/stop_2d_nav_goal', self._on_stop_simple_goal,
                            qos_profile=SERVICES)
        self.machine.start()
        self._timer = self.create_timer(1.0 / config['update_frequency'], self._on_tick)

    def _on_tick(self) -> None:
        """Tick the state machine, then tell the mux that its supervisor is alive."""
        self.machine.tick()
        self._heartbeat.stamp = self.get_clock().now().to_msg()
        self._heartbeat_pub.publish(self._heartbeat)

    # -- publishing ---------------------------------------------------------------------------

    def _publish_state(self, name: str) -> None:
        self._state_pub.publish(String(data=name))
        self.get_logger().info(f'state: {name}')

    def _publish_outcome(self, text: str) -> None:
        self._outcome_pub.publish(String(data=text))

    def _on_plugin_error(self, message: str) -> None:
        """Tell operators that a plugin is missing or failed to start, and stop the robot."""
        self._publish_outcome(message)
        self._stop_robot(message)

    def _stop_robot(self, reason: str) -> None:
        """Ask the mux for STOPPED (a state failed); the mux zeroes the output."""
        if not self._mode_client.service_is_ready():
            self.get_logger().error(f'cannot stop the robot through the mux ({reason}): '
                                    'robot_sm/set_operation_mode is not available')
            return
        request = SetOperationMode.Request()
        request.operation_mode.mode = OperationMode.STOPPED
        # Under an e-stop the mux refuses (and the output is zero anyway).
        self._mode_client.call_async(request)

    # -- inputs -------------------------------------------------------------------------------

    def _on_operation_mode(self, msg: OperationModeMsg) -> None:
        self.machine.on_operation_mode(int(msg.mode), bool(msg.emergency_stop))

    def _on_simple_goal(self, msg: PoseStamped) -> None:
        pose, problem = self._goal_in_map(msg)
        if pose is None:
            self.get_logger().warning(f'simple goal ignored: {problem}')
            self._publish_outcome(f'simple goal ignored: {problem}')
            return
        self.machine.on_simple_goal(pose)

    def _goal_in_map(self, msg: PoseStamped) -> Tuple[Optional[Pose], str]:
        """Return the goal as a pose in ``map_frame`` with a unit quaternion, or why not."""
        p, q = msg.pose.position, msg.pose.orientation
        values = (p.x, p.y, p.z, q.x, q.y, q.z, q.w)
        if not all(math.isfinite(v) for v in values):
            return None, 'the pose has a NaN or infinite value'
        norm = math.sqrt(q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w)
        if norm < 1e-6:
            return None, 'the orientation is not a quaternion (all zero)'
        pose = Pose()
        pose.position = msg.pose.position
        pose.orientation.x, pose.orientation.y = q.x / norm, q.y / norm
        pose.orientation.z, pose.orientation.w = q.z / norm, q.w / norm
        frame = msg.header.frame_id.lstrip('/')
        if not frame or frame == self._map_frame.lstrip('/'):
            return pose, ''
        return self._transform(pose, msg.header.frame_id)

    def _listen_to_tf(self) -> str:
        """Listen to TF from the start (a goal may come at once); return what is missing, or ''."""
        try:
            import tf2_geometry_msgs  # noqa: F401 - registers the geometry_msgs types with tf2
            import tf2_ros
        except ImportError as error:
            return error.name or str(error)
        self.tf_buffer = tf2_ros.Buffer()
        self._tf_listener = tf2_ros.TransformListener(self.tf_buffer, self)
        return ''

    def _transform(self, pose: Pose, frame: str) -> Tuple[Optional[Pose], str]:
        if self.tf_buffer is None:
            return None, (f"it is in frame {quoted(frame)}, not '{self._map_frame}', and "
                          f'{self._tf_missing} is not installed to transform it')
        stamped = PoseStamped(pose=pose)
        stamped.header.frame_id = frame  # stamp zero: the latest transform
        try:
            return self.tf_buffer.transform(stamped, self._map_frame).pose, ''
        except Exception as error:  # noqa: B902 - tf2 raises several exception types
            return None, f"no transform from {quoted(frame)} to '{self._map_frame}': {error}"

    # -- services -----------------------------------------------------------------------------

    def _on_start_stop_exploration(self, request: SetBool.Request,
                                   response: SetBool.Response) -> SetBool.Response:
        response.success, response.message = self.machine.start_stop_exploration(request.data)
        return response

    def _on_start_stop_waypoint_following(self, request: SetBool.Request,
                                          response: SetBool.Response) -> SetBool.Response:
        response.success, response.message = \
            self.machine.start_stop_waypoint_following(request.data)
        return response

    def _on_state_info(self, _: Trigger.Request, response: Trigger.Response) -> Any:
        name = self.machine.state_name
        response.success, response.message = bool(name), name or 'No active state'
        return response

    def _on_stop_simple_goal(self, _: Trigger.Request, response: Trigger.Response) -> Any:
        response.success, response.message = self.machine.stop_simple_goal()
        return response

    def destroy_node(self) -> None:
        """Let the current state exit (it stops what it commanded), then destroy the node."""
        self.machine.shutdown()
        super().destroy_node()


def main(args: Optional[List[str]] = None) -> None:
    """Run the state interface until shutdown."""
    sys.exit(run_node(StateInterface, args))


if __name__ == '__main__':
    main()
