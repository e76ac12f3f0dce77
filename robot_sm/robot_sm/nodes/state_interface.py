"""
The ``state_interface`` node: the state machine of the operating cycle on ROS.

It ticks :class:`~robot_sm.statemachine.machine.StateMachine` at ``update_frequency``, feeds it
the mux's operation mode and operators' simple goals, answers the start/stop services at once
(nothing blocks in a callback: states make asynchronous calls and poll them on their ticks), and
publishes the state's name on ``robot_sm/state_info`` (transient local) on every transition,
Boot's included, and how states ended on ``robot_sm/state_outcome``. After every tick it
publishes the supervisor heartbeat (``robot_sm/supervisor_heartbeat``): the mux stops autonomy
when it falls silent, so a dead or frozen state machine cannot leave the robot driving.

At start it declares and validates every installed plugin's parameters (``<plugin>.<name>``),
checks the cycle with the configured plugins (every outcome they declare is handled; a failure
refuses to start, naming role, plugin and outcome) and publishes it, as JSON, on
``robot_sm/cycle`` (transient local). States reach ROS only through a
:class:`~robot_sm.nodes.plugin_context.StateContext` and the suite's typed services
(:class:`~robot_sm.nodes.suite_services.SuiteServices`).
"""

from dataclasses import replace
import json
import sys
from typing import Any, Awaitable, Callable, Dict, List, Optional

from geometry_msgs.msg import PoseStamped
from rclpy.callback_groups import ReentrantCallbackGroup
from rclpy.node import Node
from robot_sm.contract import Activity, Command as Kind
from robot_sm.nodes.activity_actions import ActivityActions
from robot_sm.nodes.command_gateway import CommandGateway
from robot_sm.nodes.node_parameters import declare_parameters
from robot_sm.nodes.operator_control import OperatorControl, parameters as control_parameters
from robot_sm.nodes.paused_activity import parameters as paused_parameters
from robot_sm.nodes.paused_activity import PausedActivityFile, resumable_text
from robot_sm.nodes.plugin_context import RosEndpoints, StateContext
from robot_sm.nodes.runner import run_node, seconds_clock
from robot_sm.nodes.state_report import state_info
from robot_sm.nodes.suite_services import SuiteServices
from robot_sm.parameters import duration, not_empty, Param, rate
from robot_sm.qos import EVENTS, HEARTBEAT, SERVICES, STATE
from robot_sm.quoting import quoted
from robot_sm.statemachine.activity import Ended
from robot_sm.statemachine.cycle import describe, ROLES
from robot_sm.statemachine.machine import StateMachine
from robot_sm.statemachine.registry import PluginError, PluginRegistry, StateCreator
from robot_sm.statemachine.report import StateReport
from robot_sm.statemachine.states import Idle
from robot_sm.waypoint_messages import checked_pose_of, pose_message
from robot_sm.waypoints import Pose
from robot_sm_msgs.msg import OperationMode as OperationModeMsg, StateInfo
from std_msgs.msg import Header, String
from std_srvs.srv import SetBool, Trigger

#: The parameters that name the plugin of each role, with their defaults.
PLUGIN_PARAMETERS = {part.parameter: part.default for part in ROLES.values() if part.parameter}


def parameters(namespace: str = '/') -> List[Param]:
    """Return the specifications of the node's own parameters; plugins add more."""
    specs = [
        rate('update_frequency', 20.0, 'Ticks of the state machine per second (each also '
             'publishes the supervisor heartbeat).', 2.0, 1000.0),
        Param('map_frame', 'map', 'Frame of goals; simple goals in other frames are '
              'transformed with tf2.', check=not_empty),
        Param('boot_up_service', '', 'std_srvs/SetBool service that must answer true before '
              'Boot ends (called with data: true); empty: Boot ends when the service '
              'provider and the mux answer.'),
        duration('service_timeout', 5.0, 'Time a state waits for a service answer.', 0.1,
                 600.0),
        *control_parameters(namespace),
        *paused_parameters(namespace),
    ]
    for name, default in PLUGIN_PARAMETERS.items():
        roles = ', '.join(role.value for role, part in ROLES.items() if part.parameter == name)
        specs.append(Param(name, default, f'Plugin state (entry point of robot_sm.states) for '
                                          f'the roles: {roles}.', check=not_empty))
    return specs


def _declare_plugin_parameters(node: Node, registry: PluginRegistry) -> Dict[str, Any]:
    """Declare ``<plugin>.<name>`` for every loadable plugin; return the values by full name."""
    values: Dict[str, Any] = {}
    for name in registry.names():
        try:
            state_class = registry.load(name)
        except PluginError as error:
            node.get_logger().error(f'{error}: its parameters are not declared')
            continue
        declared = declare_parameters(node, state_class.PARAMETERS, prefix=name)
        values.update({f'{name}.{key}': value for key, value in declared.items()})
    return values


class StateInterface(Node):
    """Run the state machine: ticks, interrupts, operators' services, state publishing."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__('state_interface', **kwargs)
        config = declare_parameters(self, parameters(self.get_namespace()))
        registry = PluginRegistry()
        values = {**config, **_declare_plugin_parameters(self, registry)}
        self._seconds = seconds_clock(self)
        self._map_frame: str = config['map_frame']
        self.suite = SuiteServices(self, self._seconds, config['service_timeout'])
        #: The clients, publishers and subscriptions the states share.
        self.endpoints = RosEndpoints(self, self._seconds, config['service_timeout'])

        self._state_pub = self.create_publisher(String, 'robot_sm/state_info', STATE)
        self._report_pub = self.create_publisher(StateInfo, 'robot_sm/state', STATE)
        self._outcome_pub = self.create_publisher(String, 'robot_sm/state_outcome', STATE)
        self._heartbeat_pub = self.create_publisher(Header, 'robot_sm/supervisor_heartbeat',
                                                    HEARTBEAT)
        self._heartbeat = Header()
        plugins = {name: config[name] for name in PLUGIN_PARAMETERS}
        for name, plugin in plugins.items():
            if plugin not in registry.names():
                self.get_logger().error(f"{name}: plugin '{plugin}' is not installed: its "
                                        'states will fall back to Idle')
        creator = StateCreator(
            registry, plugins,
            lambda plugin: StateContext(self.endpoints, self.suite, self._map_frame, values,
                                        plugin),
            self.get_logger(), Idle, on_error=self._on_plugin_error)
        self._cycle_pub = self.create_publisher(String, 'robot_sm/cycle', STATE)
        self._cycle_pub.publish(String(data=json.dumps(describe(creator.check_cycle()))))
        self.actions: Optional[ActivityActions] = None
        #: The running or paused activity, kept across a restart (see paused_activity).
        self.paused_file = PausedActivityFile(config['paused_activity_file'],
                                              self.get_logger().error)
        self.machine = StateMachine(creator, self.get_logger(),
                                    publish_state=self._publish_state,
                                    publish_outcome=self._publish_outcome,
                                    stop_robot=self.suite.stop_robot,
                                    running=self.context.ok,
                                    publish_report=self._publish_report,
                                    activity_ended=self._on_activity_end,
                                    keep_resumable=self.paused_file.keep)
        if self.paused_file.loaded is not None:
            kept = self.paused_file.loaded
            self.machine.restore(kept)
            self.get_logger().warning(f'{kept.describe()} was kept from before the restart '
                                      f'(in {kept.state}): it comes back paused; continue '
                                      'resumes it (robot-sm continue)')
        #: Every operator command, and the RSM-compatible starts (see command_gateway).
        #: Who holds control, and the audit log.
        self.control = OperatorControl(self, config)
        self.gateway = CommandGateway(self, self.machine, config['service_timeout'],
                                      self._goal_in_map, self._publish_outcome, self.control)
        #: The activities as actions (robot_sm/follow_waypoints, explore, go_to).
        self.actions = ActivityActions(self, self.machine, self.gateway)
        #: The tf2 buffer that goals in other frames are transformed with (None without tf2).
        self.tf_buffer: Any = None
        self._tf_missing = self._listen_to_tf()

        self.create_subscription(OperationModeMsg, 'robot_sm/operation_mode',
                                 self._on_operation_mode, STATE)
        self.create_subscription(PoseStamped, 'robot_sm/simple_goal', self._on_simple_goal,
                                 EVENTS)
        # The starts go through the gateway, which waits for the mux (asynchronously): in a
        # group of their own, so that the ticks, the heartbeat and the mux's answer go on.
        starts = ReentrantCallbackGroup()
        self.create_service(SetBool, 'robot_sm/start_stop_exploration',
                            self._on_start_stop_exploration, qos_profile=SERVICES,
                            callback_group=starts)
        self.create_service(SetBool, 'robot_sm/start_stop_waypoint_following',
                            self._on_start_stop_waypoint_following, qos_profile=SERVICES,
                            callback_group=starts)
        self.create_service(Trigger, 'robot_sm/state_info', self._on_state_info,
                            qos_profile=SERVICES)
        self.create_service(Trigger, 'robot_sm/stop_2d_nav_goal', self._on_stop_simple_goal,
                            qos_profile=SERVICES, callback_group=starts)
        for name, kind in (('robot_sm/pause', Kind.PAUSE), ('robot_sm/continue', Kind.CONTINUE)):
            self.create_service(Trigger, name, self._raw_trigger(kind), qos_profile=SERVICES,
                                callback_group=starts)
        self.machine.start()
        self._timer = self.create_timer(1.0 / config['update_frequency'], self._on_tick)

    def _on_tick(self) -> None:
        """Tick the state machine, then tell the mux that its supervisor is alive."""
        self.machine.tick()
        self.suite.pump()
        if self.actions is not None:
            self.actions.on_tick()
        self._heartbeat.stamp = self.get_clock().now().to_msg()
        self._heartbeat_pub.publish(self._heartbeat)

    # -- publishing ---------------------------------------------------------------------------

    def _publish_state(self, name: str) -> None:
        self._state_pub.publish(String(data=name))
        self.get_logger().info(f'state: {name}')

    def _publish_report(self, report: StateReport) -> None:
        gateway: Optional[CommandGateway] = getattr(self, 'gateway', None)
        if report.paused is not None and report.paused.activity is Activity.WAYPOINT_FOLLOWING \
                and gateway is not None:
            report = replace(report, resumable=resumable_text(report.resumable,
                                                              gateway.waypoints))
        self._report_pub.publish(state_info(report, self.get_clock().now().to_msg()))
        if self.actions is not None:
            self.actions.on_report(report)

    def _on_activity_end(self, ended: Ended) -> None:
        if self.actions is not None:
            self.actions.on_activity_end(ended)

    def _publish_outcome(self, text: str) -> None:
        self._outcome_pub.publish(String(data=text))

    def _on_plugin_error(self, message: str) -> None:
        """Tell operators that a plugin is missing or failed to start, and stop the robot."""
        self._publish_outcome(message)
        self.suite.stop_robot(message)

    # -- inputs -------------------------------------------------------------------------------

    def _on_operation_mode(self, msg: OperationModeMsg) -> None:
        self.machine.on_operation_mode(int(msg.mode), bool(msg.emergency_stop))
        self.gateway.on_operation_mode(int(msg.mode), bool(msg.emergency_stop))

    def _on_simple_goal(self, msg: PoseStamped) -> None:
        self.gateway.raw_simple_goal(msg.header.frame_id, msg.pose)

    def _goal_in_map(self, frame: str, pose: Pose) -> Pose:
        """
        Return a goal's checked ``pose`` in ``frame`` as a checked pose in ``map_frame``.

        :raises RequestError: if the transformed pose is not usable.
        :raises ValueError: if it is in another frame and cannot be transformed.
        """
        if not frame.lstrip('/') or frame.lstrip('/') == self._map_frame.lstrip('/'):
            return pose
        if self.tf_buffer is None:
            raise ValueError(f"it is in frame {quoted(frame)}, not '{self._map_frame}', and "
                             f'{self._tf_missing} is not installed to transform it')
        stamped = PoseStamped(pose=pose_message(pose))
        stamped.header.frame_id = frame  # stamp zero: the latest transform
        try:
            transformed = self.tf_buffer.transform(stamped, self._map_frame).pose
        except Exception as error:  # noqa: B902 - tf2 raises several exception types
            raise ValueError(f"no transform from {quoted(frame)} to '{self._map_frame}': "
                             f'{error}') from None
        return checked_pose_of(transformed, 'pose')

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

    # -- services -----------------------------------------------------------------------------

    async def _on_start_stop_exploration(self, request: SetBool.Request,
                                         response: SetBool.Response) -> SetBool.Response:
        done = await self.gateway.raw_start_stop(following=False, start=bool(request.data))
        response.success, response.message = done.success, done.message
        return response

    async def _on_start_stop_waypoint_following(
            self, request: SetBool.Request, response: SetBool.Response) -> SetBool.Response:
        done = await self.gateway.raw_start_stop(following=True, start=bool(request.data))
        response.success, response.message = done.success, done.message
        return response

    def _on_state_info(self, _: Trigger.Request, response: Trigger.Response) -> Any:
        name = self.machine.state_name
        response.success, response.message = bool(name), name or 'No active state'
        return response

    async def _on_stop_simple_goal(self, _: Trigger.Request,
                                   response: Trigger.Response) -> Any:
        return await self._raw_trigger(Kind.CANCEL_GOAL)(_, response)

    def _raw_trigger(self, kind: Kind) -> Callable[[Any, Any], Awaitable[Any]]:
        """Return the callback of a Trigger service that gives ``kind`` as a raw ROS caller."""
        async def serve(_: Trigger.Request, response: Trigger.Response) -> Any:
            done = await self.gateway.raw(kind)
            response.success, response.message = done.success, done.message
            return response
        return serve

    def destroy_node(self) -> None:
        """Let the current state exit (it stops what it commanded), then destroy the node."""
        self.machine.shutdown()
        if self.actions is not None:
            self.actions.destroy()
        self.control.close()
        self.paused_file.close()
        super().destroy_node()


def main(args: Optional[List[str]] = None) -> None:
    """Run the state interface until shutdown."""
    sys.exit(run_node(StateInterface, args))


if __name__ == '__main__':
    main()
