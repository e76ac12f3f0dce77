"""
teleop_retargeting: XR controllers (or a gamepad) drive an SO-101-class arm, optionally the base.

Every ``1/rate_hz`` seconds the node samples both controllers, runs the teleop state machine
(kill / run toggle / reset buttons on the ``control_hand`` controller) and the retargeters (clutch,
wrist roll, gripper on the ``arm_hand`` controller), solves position-only IK for the arm and
publishes:

- ``joint_command`` (sensor_msgs/JointState) only while RUNNING, each joint moving at most
  ``max_joint_speed``; while PAUSED or STOPPED nothing is sent, so the last command holds, and the
  clutch re-latches on re-engage (no jump);
- ``teleop/action`` (Float32MultiArray ``[pos_x, pos_y, pos_z, roll, gripper]``) and
  ``teleop/ee_target`` (PoseStamped, in ``base_frame``) every tick;
- ``teleop/execution_state`` (robot_sm_msgs/ExecutionState, transient_local) when it changes;
- ``teleop/reset`` (Bool) every tick, true in the tick of a reset;
- ``teleoperation/cmd_vel`` (Twist) from the ``base_hand`` thumbstick while RUNNING when
  ``base_teleop`` is true, and one zero command on leaving RUNNING.

A controller is present while its ``xr/<hand>/joy`` messages keep arriving (within
``input_timeout``); its pose counts as tracked while ``xr/<hand>/pose`` messages do. A stream
that is late (no message for ``input_timeout``) holds its last sample: nothing new moves the arm,
and a burst of late samples whose stamps show no gap carries on as if they had come on time. A
controller that is lost (its stamps show a gap of more than ``input_timeout``, or it is silent
for ``input_timeout + input_tolerance``) stops teleop (fail-safe to STOPPED, one reset pulse):
see :mod:`robot_sm.teleop.input_presence`.

The robot's latched emergency stop (``robot_sm/operation_mode``, transient_local, from
robot_control_mux) stops teleop the same way while it is engaged, so the arm obeys the e-stop as
the base does; after the release nothing moves until the operator toggles run again.
"""

import math
import sys
from typing import Any, Callable, Dict, List, Optional, Tuple

from ament_index_python.packages import get_package_share_directory, PackageNotFoundError
from geometry_msgs.msg import PoseStamped, Twist
import numpy as np
from rclpy.node import Node
from robot_sm import qos
from robot_sm.nodes.node_parameters import declare_parameters
from robot_sm.nodes.runner import run_node, seconds_clock
from robot_sm.parameters import config_from, ConfigurationError, Param, rate
from robot_sm.teleop import quaternion
from robot_sm.teleop.arm_teleop import ACTION_ELEMENTS, ArmTeleop
from robot_sm.teleop.controller import ControllerSample, HANDS
from robot_sm.teleop.execution import ExecutionState
from robot_sm.teleop.ik import model_from_urdf, model_from_urdf_file, PositionIk
from robot_sm.teleop.input_presence import INPUT_PARAMETERS, InputPresence, Presence
from robot_sm.teleop.settings import IK_PARAMETERS, IkSettings, TELEOP_PARAMETERS, TeleopSettings
from robot_sm_msgs.msg import ExecutionState as ExecutionStateMsg, OperationMode
from sensor_msgs.msg import JointState, Joy
from std_msgs.msg import Bool, Float32MultiArray, MultiArrayDimension

BUNDLED_URDF = 'so101_arm.urdf'

_STATE_CODES = {
    ExecutionState.STOPPED: ExecutionStateMsg.STOPPED,
    ExecutionState.PAUSED: ExecutionStateMsg.PAUSED,
    ExecutionState.RUNNING: ExecutionStateMsg.RUNNING,
}

#: Joy message fields read from each controller: parameter → (Joy field, ControllerSample field).
JOY_FIELDS: Dict[str, Tuple[str, str]] = {
    'button_primary': ('buttons', 'primary_click'),
    'button_secondary': ('buttons', 'secondary_click'),
    'button_thumbstick': ('buttons', 'thumbstick_click'),
    'axis_thumbstick_x': ('axes', 'thumbstick_x'),
    'axis_thumbstick_y': ('axes', 'thumbstick_y'),
    'axis_trigger': ('axes', 'trigger_value'),
    'axis_squeeze': ('axes', 'squeeze_value'),
}


def _index(name: str, default: int, what: str) -> Param:
    return Param(name, default, f'index of {what} in the Joy message of a controller', minimum=0)


PARAMETERS = [
    rate('rate_hz', 60.0, 'tick rate of the retargeting loop', 1.0, 1000.0),
    *INPUT_PARAMETERS,
    _index('button_primary', 0, 'the primary button (A/X)'),
    _index('button_secondary', 1, 'the secondary button (B/Y)'),
    _index('button_thumbstick', 2, 'the thumbstick click'),
    _index('axis_thumbstick_x', 0, 'the thumbstick x axis (right positive)'),
    _index('axis_thumbstick_y', 1, 'the thumbstick y axis (up positive)'),
    _index('axis_trigger', 2, 'the trigger axis (0 released .. 1 pressed)'),
    _index('axis_squeeze', 3, 'the squeeze (grip) axis (0 released .. 1 pressed)'),
    *TELEOP_PARAMETERS,
    Param('robot_description', '', 'URDF of the arm; empty: read urdf_path'),
    Param('urdf_path', '', f'URDF file of the arm; empty: the bundled config/{BUNDLED_URDF}'),
    Param('base_frame', 'base_link', 'frame of teleop/ee_target (the URDF root link)'),
    *IK_PARAMETERS,
]


def _pose_matrix(msg: PoseStamped) -> np.ndarray:
    """Return the 4x4 transform of a pose; all-NaN if it is not a usable pose."""
    p, o = msg.pose.position, msg.pose.orientation
    position = np.array([p.x, p.y, p.z])
    orientation = np.array([o.x, o.y, o.z, o.w])
    if not np.all(np.isfinite(position)) or not quaternion.is_usable(orientation):
        return np.full((4, 4), math.nan)
    return quaternion.transform(position, quaternion.normalize(orientation))


class ControllerStream:
    """The newest message of one controller topic, and its stream's presence."""

    def __init__(self, clock: Callable[[], float], config: Dict[str, Any]) -> None:
        self._clock = clock
        self.latest: Any = None
        self.presence = InputPresence(config['input_timeout'], config['input_tolerance'])

    def __call__(self, msg: Any) -> None:
        """Take a message (the subscription's callback)."""
        self.latest = msg
        stamp = msg.header.stamp
        self.presence.received(self._clock(), stamp.sec + stamp.nanosec * 1e-9)


class TeleopRetargeting(Node):
    """XR controller teleop of an SO-101-class arm: state machine, retargeters and IK."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__('teleop_retargeting', **kwargs)
        config = declare_parameters(self, PARAMETERS)
        settings = config_from(TeleopSettings, config)
        self._base_frame = config['base_frame']
        self._joy_fields = [(config[name], field, attribute)
                            for name, (field, attribute) in JOY_FIELDS.items()]
        self._needed = {field: 1 + max(index for index, f, _ in self._joy_fields if f == field)
                        for field in ('buttons', 'axes')}
        try:
            self._teleop = ArmTeleop(settings, self._ik(config))
        except ValueError as error:
            raise ConfigurationError(f'parameter {error}') from None

        self._now = seconds_clock(self)
        self._poses = {hand: ControllerStream(self._now, config) for hand in HANDS}
        self._joys = {hand: ControllerStream(self._now, config) for hand in HANDS}
        #: The sample each controller last gave: held while its stream is late.
        self._held: Dict[str, Optional[ControllerSample]] = dict.fromkeys(HANDS)
        self._robot_ee_pose: Optional[np.ndarray] = None
        self._robot_base_pose: Optional[np.ndarray] = None
        for hand in HANDS:
            self.create_subscription(PoseStamped, f'xr/{hand}/pose', self._poses[hand],
                                     qos.CONTROLLER_SAMPLES)
            self.create_subscription(Joy, f'xr/{hand}/joy', self._joys[hand],
                                     qos.CONTROLLER_SAMPLES)
        self.create_subscription(PoseStamped, 'robot_ee_pose', self._on_ee_pose, qos.SENSOR)
        self.create_subscription(PoseStamped, 'robot_base_pose', self._on_base_pose, qos.SENSOR)
        self._emergency_stop = False
        self.create_subscription(OperationMode, 'robot_sm/operation_mode',
                                 self._on_operation_mode, qos.STATE)

        self._joint_pub = self.create_publisher(JointState, 'joint_command', qos.COMMAND_OUT)
        self._action_pub = self.create_publisher(Float32MultiArray, 'teleop/action',
                                                 qos.COMMAND_OUT)
        self._target_pub = self.create_publisher(PoseStamped, 'teleop/ee_target',
                                                 qos.COMMAND_OUT)
        self._state_pub = self.create_publisher(ExecutionStateMsg, 'teleop/execution_state',
                                                qos.STATE)
        self._reset_pub = self.create_publisher(Bool, 'teleop/reset', qos.EVENTS)
        self._cmd_vel_pub = (self.create_publisher(Twist, 'teleoperation/cmd_vel',
                                                   qos.COMMAND_OUT)
                             if config['base_teleop'] else None)
        self._published_state: Optional[Tuple[int, bool]] = None
        self.create_timer(1.0 / config['rate_hz'], self._tick)
        self.get_logger().info(
            f"driving {', '.join(self._teleop.joint_names)} from the {config['arm_hand']} "
            f"controller at {config['rate_hz']:g} Hz (control: {config['control_hand']}, "
            f"scale {config['position_scale']:g}, base teleop "
            f"{'on' if config['base_teleop'] else 'off'})")

    @staticmethod
    def _ik(config: Dict[str, Any]) -> PositionIk:
        try:
            if config['robot_description']:
                model = model_from_urdf(config['robot_description'])
            else:
                model = model_from_urdf_file(config['urdf_path'] or _bundled_urdf())
        except ValueError as error:
            source = 'robot_description' if config['robot_description'] else 'urdf_path'
            raise ConfigurationError(f"parameter '{source}': {error}") from None
        try:
            return PositionIk(model, config_from(IkSettings, config))
        except ValueError as error:
            raise ConfigurationError(f'parameter {error}') from None

    def _on_operation_mode(self, msg: OperationMode) -> None:
        if msg.emergency_stop != self._emergency_stop:
            self.get_logger().warning(
                'emergency stop engaged: teleop stopped' if msg.emergency_stop
                else 'emergency stop released: toggle run to teleoperate')
        self._emergency_stop = msg.emergency_stop

    def _on_ee_pose(self, msg: PoseStamped) -> None:
        self._robot_ee_pose = _pose_matrix(msg)

    def _on_base_pose(self, msg: PoseStamped) -> None:
        self._robot_base_pose = _pose_matrix(msg)

    def _sample(self, hand: str, now: float) -> Optional[ControllerSample]:
        """Return the controller sample of ``hand``: its last one while late, None when lost."""
        joy = self._joys[hand]
        presence = joy.presence.presence(now)
        if presence is Presence.LATE:
            return self._held[hand]
        self._held[hand] = None
        if presence is Presence.LOST:
            return None
        msg: Joy = joy.latest
        lengths = {'buttons': len(msg.buttons), 'axes': len(msg.axes)}
        if any(lengths[field] < needed for field, needed in self._needed.items()):
            self.get_logger().warning(
                f'xr/{hand}/joy has {lengths["buttons"]} buttons and {lengths["axes"]} axes; '
                f'the configured indices need {self._needed["buttons"]} and '
                f'{self._needed["axes"]}: treating the controller as absent',
                throttle_duration_sec=5.0)
            return None
        values = {attribute: float(getattr(msg, field)[index])
                  for index, field, attribute in self._joy_fields}
        pose = self._poses[hand]
        tracked = pose.presence.presence(now) is not Presence.LOST
        position, orientation = np.zeros(3), np.array([0.0, 0.0, 0.0, 1.0])
        if tracked:
            p, o = pose.latest.pose.position, pose.latest.pose.orientation
            position, orientation = np.array([p.x, p.y, p.z]), np.array([o.x, o.y, o.z, o.w])
        self._held[hand] = ControllerSample(
            grip_position=position, grip_orientation=orientation, grip_is_valid=tracked,
            aim_position=position, aim_orientation=orientation, aim_is_valid=tracked, **values)
        return self._held[hand]

    def _tick(self) -> None:
        now = self._now()
        out = self._teleop.tick(now, self._sample('left', now), self._sample('right', now),
                                self._robot_ee_pose, self._robot_base_pose,
                                halted=self._emergency_stop)
        stamp = self.get_clock().now().to_msg()

        state = (_STATE_CODES[out.state], out.reset)
        if state != self._published_state:
            self._state_pub.publish(ExecutionStateMsg(state=state[0], reset=state[1]))
            self._published_state = state
        self._reset_pub.publish(Bool(data=out.reset))

        action = Float32MultiArray(data=[float(v) for v in out.action])
        action.layout.dim = [MultiArrayDimension(label=','.join(ACTION_ELEMENTS),
                                                 size=len(ACTION_ELEMENTS), stride=1)]
        self._action_pub.publish(action)

        target = PoseStamped()
        target.header.stamp = stamp
        target.header.frame_id = self._base_frame
        x, y, z, qx, qy, qz, qw = (float(v) for v in out.ee_pose)
        target.pose.position.x, target.pose.position.y, target.pose.position.z = x, y, z
        orientation = target.pose.orientation
        orientation.x, orientation.y, orientation.z, orientation.w = qx, qy, qz, qw
        self._target_pub.publish(target)

        if out.joint_positions is not None:
            command = JointState(name=list(self._teleop.joint_names),
                                 position=[float(v) for v in out.joint_positions])
            command.header.stamp = stamp
            self._joint_pub.publish(command)

        if self._cmd_vel_pub is not None and out.base_velocity is not None:
            twist = Twist()
            twist.linear.x, twist.angular.z = out.base_velocity
            self._cmd_vel_pub.publish(twist)


def _bundled_urdf() -> str:
    try:
        share = get_package_share_directory('robot_sm')
    except PackageNotFoundError:
        raise ConfigurationError(
            "parameter 'urdf_path': empty, and the robot_sm package share (with the bundled "
            f'{BUNDLED_URDF}) is not installed') from None
    return f'{share}/config/{BUNDLED_URDF}'


def main(args: Optional[List[str]] = None) -> None:
    """Run the teleop_retargeting node."""
    sys.exit(run_node(TeleopRetargeting, args))


if __name__ == '__main__':
    main()
