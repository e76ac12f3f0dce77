"""
The ``robot_control_mux`` node: decides who may move the base.

A thin ROS layer over :class:`robot_sm.mux.ControlMux`: it turns the velocity inputs (the
``inputs`` of the parameter file; without any, ``autonomy/cmd_vel`` and
``teleoperation/cmd_vel``), the ``locks``, optionally ``joy`` and a heartbeat topic, the
supervisor's heartbeat (``robot_sm/supervisor_heartbeat``) and the services
``robot_sm/set_operation_mode`` and ``robot_sm/emergency_stop`` into calls on the core (and
``robot_sm/_mux/command``: a STOP that names its operator, and the modes and releases the
command gateway forwards), and
publishes what the core decides: ``cmd_vel`` on every tick of ``update_frequency`` and at once
when the input that drives sends or the output drops to zero, ``robot_sm/operation_mode``
(transient_local) when it changes and at a low keep-alive rate, ``robot_sm/selected_input``
(transient_local) when another input drives, ``robot_sm/emergency_stop_cause`` (transient_local:
the e-stop's reason, '' when released) on every engage and release, ``/diagnostics`` at 1 Hz,
and, with a heartbeat topic, ``robot_sm/operator_present`` (transient_local): false until the
first heartbeat, true on every heartbeat, false when it falls silent, so that the operator sees
the robot hears it. The heartbeat's watchdog arms at the first beat: until then modes are refused
and the mux stays STOPPED.

The e-stop latch is kept in ``emergency_stop_file``: written on every engage and release by a
background thread (stopping never waits for the disk), read at start.
"""

import sys
from types import SimpleNamespace
from typing import Any, Callable, Dict, List, Optional

from diagnostic_msgs.msg import DiagnosticArray, DiagnosticStatus, KeyValue
from geometry_msgs.msg import Twist, TwistStamped
from rclpy.node import Node
from rclpy.publisher import Publisher
from rclpy.subscription import Subscription
from robot_sm import qos
from robot_sm.contract import (
    Code,
    Command as CommandKind,
    EMERGENCY_STOP_CAUSE,
    Mode,
    MUX_COMMAND,
    OPERATOR_PRESENT,
    SELECTED_INPUT,
)
from robot_sm.gateway.request import OperatorId
from robot_sm.mux import (
    Answer,
    ControlMux,
    Level,
    Lock,
    MUX_PARAMETERS,
    MuxConfig,
    SUPERVISOR_HEARTBEAT,
    Velocity,
    velocity_inputs,
    VelocityInput,
)
from robot_sm.mux.diagnosis import key_values
from robot_sm.nodes.command_messages import answer, operator_of
from robot_sm.nodes.emergency_stop_latch import EmergencyStopLatch
from robot_sm.nodes.mux_inputs import check_topics, declare_inputs_and_locks
from robot_sm.nodes.mux_operators import MuxOperators
from robot_sm.nodes.node_parameters import declare_parameters
from robot_sm.nodes.runner import run_node, seconds_clock
from robot_sm.parameters import config_from, Param, rate
from robot_sm.storage import default_file
from robot_sm_msgs.msg import AuditEntry, OperationMode
from robot_sm_msgs.srv import Command, SetOperationMode
from sensor_msgs.msg import Joy
from std_msgs.msg import Bool, Header, String
from std_srvs.srv import SetBool


#: Who the records name for a raw ROS request, and for what the mux does by itself.
RAW = OperatorId('', 'ros')
MUX = OperatorId('', 'robot_control_mux')


def parameters(namespace: str = '/') -> List[Param]:
    """Return the node's parameter specifications; the e-stop file's default follows it."""
    return [
        rate('update_frequency', 20.0, 'Rate at which cmd_vel is published and the timeouts '
             'are checked.', 1.0, 1000.0),
        *MUX_PARAMETERS,
        Param('heartbeat_topic', '', 'std_msgs/Bool topic of the operator heartbeat: until it '
              'is first heard modes are refused; then it must keep arriving, else the '
              'emergency stop engages (data true also engages it); empty: no watchdog.'),
        Param('emergency_stop_file', default_file(namespace, 'emergency_stop.yaml'),
              'File the emergency stop latch is kept in (written on every engage and release, '
              "read at start: an engaged latch survives a restart); '' disables it."),
        Param('input_stamped', False, 'Velocity inputs are geometry_msgs/TwistStamped instead '
              'of Twist.'),
        Param('output_stamped', False, 'Publish cmd_vel as geometry_msgs/TwistStamped instead '
              'of Twist.'),
        Param('frame_id', 'base_link', 'header.frame_id of stamped cmd_vel output.'),
        rate('operation_mode_keepalive_rate', 1.0, 'Rate at which robot_sm/operation_mode is '
             'republished besides every change; 0: only on change.', 0.1, 100.0, off=True),
    ]


def _from_twist(msg: Twist) -> Velocity:
    linear, angular = msg.linear, msg.angular
    return Velocity(linear.x, linear.y, linear.z, angular.x, angular.y, angular.z)


def _from_twist_stamped(msg: TwistStamped) -> Velocity:
    return _from_twist(msg.twist)


class RobotControlMux(MuxOperators, Node):
    """Velocity mux with modes, teleoperation takeover, a latched e-stop and a safe output."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__('robot_control_mux', **kwargs)
        config = declare_parameters(self, parameters(self.get_namespace()))
        declare_inputs_and_locks(self, config)
        self._now = seconds_clock(self)
        heartbeat_topic: str = config['heartbeat_topic']
        if not heartbeat_topic:
            config['heartbeat_timeout'] = None  # no watchdog
        mux_config = config_from(MuxConfig, config)
        self._dropped_reported = 0
        self._last_drop_warning = float('-inf')
        self._create_outputs(config)
        self._subscribe_inputs(config, mux_config)
        #: True while a request is carried out: an e-stop it engages is recorded by it.
        self._handling = False
        # The e-stop latch, read before anything is published.
        self._latch = EmergencyStopLatch(config['emergency_stop_file'], self.get_logger().error)
        self._mux = ControlMux(mux_config, self._now(), self._latch.loaded.emergency_stop_reason)
        if self._latch.loaded.problem:
            self._write_latch()  # the corrupt file was moved aside: keep the latch engaged
        self._follow_operators()
        self._mode = self._mux.mode
        self._emergency_stop = self._mux.emergency_stop
        self._supervisor_lost = self._mux.supervisor_lost
        self._supervisor_heard = False
        self._operator_present = self._mux.operator_present
        if self._presence_pub is not None:
            self._presence_pub.publish(Bool(data=False))

        self.create_service(SetOperationMode, 'robot_sm/set_operation_mode',
                            self._on_set_operation_mode, qos_profile=qos.SERVICES)
        self.create_service(SetBool, 'robot_sm/emergency_stop', self._on_emergency_stop,
                            qos_profile=qos.SERVICES)
        self.create_service(Command, MUX_COMMAND, self._on_command, qos_profile=qos.SERVICES)
        self.create_timer(1.0 / config['update_frequency'], self._on_tick)
        if config['operation_mode_keepalive_rate'] > 0.0:
            self.create_timer(1.0 / config['operation_mode_keepalive_rate'],
                              self._publish_mode)
        self.create_timer(1.0, self._publish_diagnostics)
        self._publish_mode()
        self._publish_selected()
        self._publish_cause(started=True)
        self._log_start(heartbeat_topic, mux_config)

    def _create_outputs(self, config: Dict[str, Any]) -> None:
        """Create the command output and the state topics."""
        self._stamped = config['output_stamped']
        self._frame_id: str = config['frame_id']
        self._out: Any = TwistStamped() if self._stamped else Twist()
        if self._stamped:
            self._out.header.frame_id = self._frame_id
        self._cmd_pub = self.create_publisher(
            TwistStamped if self._stamped else Twist, 'cmd_vel', qos.COMMAND_OUT)
        self._mode_pub = self.create_publisher(
            OperationMode, 'robot_sm/operation_mode', qos.STATE)
        self._selected_pub = self.create_publisher(String, SELECTED_INPUT, qos.STATE)
        self._selected = ''
        self._cause_pub = self.create_publisher(String, EMERGENCY_STOP_CAUSE, qos.STATE)
        self._diagnostics_pub = self.create_publisher(DiagnosticArray, '/diagnostics', 10)
        self._presence_pub: Optional[Publisher] = None
        if config['heartbeat_topic']:
            self._presence_pub = self.create_publisher(Bool, OPERATOR_PRESENT, qos.STATE)

    def _subscribe_inputs(self, config: Dict[str, Any], mux_config: MuxConfig) -> None:
        """Subscribe to the velocity inputs, locks, joystick and heartbeats."""
        heartbeat_topic: str = config['heartbeat_topic']
        self._in_type = TwistStamped if config['input_stamped'] else Twist
        self._to_velocity: Callable[[Any], Velocity] = (
            _from_twist_stamped if config['input_stamped'] else _from_twist)
        sources, locks = velocity_inputs(mux_config), mux_config.locks
        check_topics(self, [(f'inputs.{source.name}.topic', source.topic) for source in sources]
                     + [(f'locks.{lock.name}.topic', lock.topic) for lock in locks]
                     + ([('heartbeat_topic', heartbeat_topic)] if heartbeat_topic else []))
        self._velocity_subs = [self._subscribe_velocity(source) for source in sources]
        for lock in locks:
            self._subscribe_lock(lock)
        if config['joystick_used']:
            self.create_subscription(Joy, 'joy', self._on_joy, qos.SENSOR)
        if heartbeat_topic:
            self.create_subscription(Bool, heartbeat_topic, self._on_heartbeat, qos.SENSOR)
        self.create_subscription(Header, SUPERVISOR_HEARTBEAT, self._on_supervisor_heartbeat,
                                 qos.HEARTBEAT)

    def _log_start(self, heartbeat_topic: str, mux_config: MuxConfig) -> None:
        self.get_logger().info(
            f'started in STOPPED; {self._mux.config}; heartbeat '
            f"{heartbeat_topic or 'off'}; output {'TwistStamped' if self._stamped else 'Twist'}; "
            f"emergency stop latch {self._latch.file.path if self._latch.file else 'off'}")
        self.get_logger().info(
            f"inputs: {', '.join(map(str, velocity_inputs(mux_config)))}; locks: "
            f"{', '.join(map(str, mux_config.locks)) or 'none'}")
        if self._mux.emergency_stop:
            self.get_logger().error(
                f'started with the EMERGENCY STOP ENGAGED ({self._mux.emergency_stop_reason}): '
                'release it with robot_sm/emergency_stop, then select a mode')
        if self._mux.operator_heartbeat is not None:
            self.get_logger().info(self._mux.operator_heartbeat.not_heard())
        else:
            self.get_logger().info('no input takes over until an operator selects a mode '
                                   '(robot_sm/set_operation_mode)')

    def _write_latch(self) -> None:
        """Hand the e-stop's state to the latch writer; never waits for the disk."""
        self._latch.write(self._mux.emergency_stop, self._mux.emergency_stop_reason)

    # Inputs -----------------------------------------------------------------------------------

    def _subscribe_velocity(self, source: VelocityInput) -> Subscription:
        """Subscribe to the topic of ``source``: its commands go to the mux as its own."""
        name, to_velocity = source.name, self._to_velocity

        def on_command(msg: Any) -> None:
            self._forward(self._mux.command(name, to_velocity(msg), self._now()))
        return self.create_subscription(self._in_type, source.topic, on_command, qos.COMMAND_IN)

    def _subscribe_lock(self, lock: Lock) -> Subscription:
        """Subscribe to the topic of ``lock`` (best effort: it matches any publisher)."""
        name = lock.name

        def on_lock(msg: Bool) -> None:
            self._forward(self._mux.lock(name, bool(msg.data), self._now()))
        return self.create_subscription(Bool, lock.topic, on_lock, qos.SENSOR)

    def _forward(self, out: Optional[Velocity]) -> None:
        """Publish what an input event asks to publish at once, and what changed with it."""
        if out is not None:
            self._publish(out)
            self._sync_state()

    def _on_joy(self, msg: Joy) -> None:
        self._forward(self._mux.joystick(msg.axes, msg.buttons, self._now()))

    def _on_heartbeat(self, msg: Bool) -> None:
        self._forward(self._mux.heartbeat(bool(msg.data), self._now()))
        self._sync_state()
        if self._presence_pub is not None:
            # Every beat is answered: the operator sees that the robot hears it.
            self._presence_pub.publish(Bool(data=True))

    @property
    def supervisor_heard(self) -> bool:
        """Return whether the supervisor's heartbeat has been heard since the start."""
        return self._mux.supervisor.armed

    def _on_supervisor_heartbeat(self, _: Header) -> None:
        out = self._mux.supervisor_heartbeat(self._now())
        if out is not None:
            self._publish(out)
        self._sync_state()

    def _on_tick(self) -> None:
        self._publish(self._mux.tick(self._now()))
        self._sync_state()
        self._warn_dropped()

    # Services ---------------------------------------------------------------------------------

    def _on_set_operation_mode(self, request: SetOperationMode.Request,
                               response: SetOperationMode.Response) -> SetOperationMode.Response:
        requested = request.operation_mode
        described = (f'set_operation_mode(mode={requested.mode}, '
                     f'emergency_stop={requested.emergency_stop})')
        refusal = '' if requested.emergency_stop else self.raw_refusal()  # STOP always works
        self._handling = True
        answer = Answer(False, refusal) if refusal else self._mux.set_operation_mode(
            requested.mode, requested.emergency_stop, self._now())
        self._answer(answer, response, described)
        self._handling = False
        self.record(AuditEntry.KIND_STOP if requested.emergency_stop else AuditEntry.KIND_RAW,
                    RAW, 'set_operation_mode', answer.success, answer.message,
                    int(Code.NOT_IN_CONTROL if refusal else Code.DONE if answer.success
                        else Code.REFUSED))
        return response

    def _on_emergency_stop(self, request: SetBool.Request,
                           response: SetBool.Response) -> SetBool.Response:
        now = self._now()
        refusal = '' if request.data else self.raw_refusal()  # STOP always works
        self._handling = True
        answer = Answer(False, refusal) if refusal else (
            self._mux.engage('emergency_stop service', now) if request.data
            else self._mux.release(now))
        self._answer(answer, response, f'emergency_stop({request.data})')
        self._handling = False
        self.record(AuditEntry.KIND_STOP if request.data else AuditEntry.KIND_RAW, RAW,
                    'engage_emergency_stop' if request.data else 'release_emergency_stop',
                    answer.success, answer.message,
                    int(Code.NOT_IN_CONTROL if refusal else Code.DONE if answer.success
                        else Code.REFUSED))
        return response

    def _on_command(self, request: Command.Request,
                    response: Command.Response) -> Command.Response:
        """Carry out a STOP from any surface, or a mode or release the gateway forwards."""
        by = operator_of(request.by)
        before = self._mux.state
        now = self._now()
        self._handling = True
        if request.command == Command.Request.ENGAGE_EMERGENCY_STOP:
            surface = f' ({by.surface})' if by.surface else ''
            result = self._mux.engage(f'STOP by {by}{surface}', now)
        elif request.command == Command.Request.RELEASE_EMERGENCY_STOP:
            result = self._mux.release(now)
        elif request.command == Command.Request.SELECT_MODE:
            result = self._mux.set_mode(request.mode, now)
        else:
            self._handling = False
            return answer(response, Code.INVALID, f'command {request.command} is not one of '
                                                  "the mux's (ENGAGE_EMERGENCY_STOP, "
                                                  'RELEASE_EMERGENCY_STOP, SELECT_MODE)')
        self._answer(result, SimpleNamespace(), f'{CommandKind(request.command).label} by {by}')
        self._handling = False
        if request.command == Command.Request.ENGAGE_EMERGENCY_STOP:
            self.record(AuditEntry.KIND_STOP, by, 'engage_emergency_stop', result.success,
                        result.message)
        code = Code.DONE if result.success else (
            Code.INVALID if request.command == Command.Request.SELECT_MODE
            and request.mode not in Mode._value2member_map_ else Code.REFUSED)
        return answer(response, code, result.message, self._mux.state != before)

    def _answer(self, answer: Answer, response: Any, request: str) -> Any:
        if self._state_changed():
            self._publish(self._mux.output(self._now()))  # before the caller hears back
            self._sync_state()
        if answer.success:
            self.get_logger().info(f'{request}: {answer.message}')
        else:
            self.get_logger().warning(f'{request}: {answer.message}')
        response.success = answer.success
        response.message = answer.message
        return response

    # Output -----------------------------------------------------------------------------------

    def _publish(self, velocity: Velocity) -> None:
        out = self._out
        if self._stamped:
            out.header.stamp = self.get_clock().now().to_msg()
            twist = out.twist
        else:
            twist = out
        linear, angular = twist.linear, twist.angular
        linear.x, linear.y, linear.z, angular.x, angular.y, angular.z = velocity
        self._cmd_pub.publish(out)
        if self._mux.active_source != self._selected:
            self._publish_selected()

    def _publish_selected(self) -> None:
        """Publish (and log) the input that drives, as of the output just published."""
        self._selected = self._mux.active_source
        self._selected_pub.publish(String(data=self._selected))
        self.get_logger().info(f'input that drives: {self._selected}')

    def _state_changed(self) -> bool:
        mux = self._mux
        return mux.mode is not self._mode or mux.emergency_stop is not self._emergency_stop

    def _sync_state(self) -> None:
        mux = self._mux
        if mux.supervisor_lost is not self._supervisor_lost:
            self._supervisor_lost = mux.supervisor_lost
            if mux.supervisor_lost:
                self.get_logger().error(
                    f'supervisor silent ({SUPERVISOR_HEARTBEAT}, supervisor_timeout '
                    f'{mux.config.supervisor_timeout:g} s): AUTONOMOUS is refused until it is '
                    'heard again')
            elif self._supervisor_heard:
                self.get_logger().info('supervisor heard again: AUTONOMOUS can be selected')
        if mux.supervisor.armed and not self._supervisor_heard:
            self._supervisor_heard = True
            self.get_logger().info(
                f'supervisor heard ({SUPERVISOR_HEARTBEAT}): its silence for more than '
                f'{mux.config.supervisor_timeout:g} s stops AUTONOMOUS')
        if mux.operator_present is not self._operator_present:
            self._operator_present = mux.operator_present
            if mux.operator_present:
                self.get_logger().info(
                    'operator heartbeat heard: its silence for more than '
                    f'{mux.config.heartbeat_timeout:g} s engages the emergency stop')
            elif self._presence_pub is not None:
                self._presence_pub.publish(Bool(data=False))
                self.get_logger().error('operator heartbeat silent: the operator is not present')
        if not self._state_changed():
            return
        if mux.emergency_stop is not self._emergency_stop:
            self._write_latch()
            self._publish_cause()
            if mux.emergency_stop and not self._handling:  # engaged by the mux itself
                self.record(AuditEntry.KIND_STOP, MUX, 'engage_emergency_stop', True,
                            mux.emergency_stop_reason)
        self._mode, self._emergency_stop = mux.mode, mux.emergency_stop
        self._publish_mode()
        estop = ', EMERGENCY STOP' if mux.emergency_stop else ''
        self.get_logger().info(f'mode {mux.mode.name}{estop} ({mux.reason})')

    def _publish_cause(self, started: bool = False) -> None:
        mux = self._mux
        cause = mux.reason if started else f'emergency stop engaged: {mux.emergency_stop_reason}'
        self._cause_pub.publish(String(data=cause if mux.emergency_stop else ''))

    def _publish_mode(self) -> None:
        self._mode_pub.publish(
            OperationMode(mode=int(self._mux.mode), emergency_stop=self._mux.emergency_stop))

    def _warn_dropped(self) -> None:
        dropped = self._mux.dropped
        if dropped == self._dropped_reported:
            return
        now = self._now()
        if now - self._last_drop_warning < 1.0:
            return
        self._last_drop_warning = now
        new = dropped - self._dropped_reported
        self._dropped_reported = dropped
        counts = ', '.join(f'{name} {stats.dropped}' for name, stats in self._mux.inputs.items()
                           if stats.dropped)
        self.get_logger().warning(
            f'dropped {new} message(s) with NaN or infinite values (totals: {counts})')

    def _publish_diagnostics(self) -> None:
        now = self._now()
        status = self._mux.status(now)
        level, summary = status.level, status.summary
        values = key_values(status, self._mux.output(now), bool(self._mux.selection.locks))
        latch_values, latch_problem = self._latch.diagnostics()
        values += latch_values
        problems = [latch_problem] if latch_problem else []
        problems += self._type_mismatches()
        if problems:
            level = max(level, Level.WARN)
            summary += '; ' + '; '.join(problems)
        diagnostic = DiagnosticStatus(
            level=bytes([int(level)]), name=f'{self.get_name()}: velocity mux',
            message=summary, hardware_id=self.get_fully_qualified_name(),
            values=[KeyValue(key=key, value=value) for key, value in values])
        header = Header(stamp=self.get_clock().now().to_msg())
        self._diagnostics_pub.publish(DiagnosticArray(header=header, status=[diagnostic]))

    def _type_mismatches(self) -> List[str]:
        """Name input topics with publishers of another type: those never connect in DDS."""
        expected = 'geometry_msgs/msg/' + self._in_type.__name__
        problems = []
        for subscription in self._velocity_subs:
            topic = subscription.topic_name
            others = sorted({info.topic_type for info in self.get_publishers_info_by_topic(topic)
                             if info.topic_type != expected})
            if others:
                problems.append(f"{topic} has publishers of {', '.join(others)}, not {expected}")
        return problems

    def destroy_node(self) -> None:
        """Finish writing the e-stop latch, then destroy the node."""
        self._latch.close()
        super().destroy_node()


def main(args: Optional[List[str]] = None) -> None:
    """Run the node until shutdown."""
    sys.exit(run_node(RobotControlMux, args))


if __name__ == '__main__':
    main()
