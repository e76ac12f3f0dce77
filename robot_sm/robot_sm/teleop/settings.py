"""
The teleop pipelines' and the IK's settings, and the specification of each of their parameters.

:data:`TELEOP_PARAMETERS` and :data:`IK_PARAMETERS` are the ``teleop_retargeting`` node's
parameters that configure the core. :class:`TeleopSettings` and :class:`IkSettings` take their
defaults from them and check their fields with them, and each retargeter checks the arguments it
is built with by the same specs (:func:`checked`): one rule and one message per parameter,
whether the node or a caller in Python gives the value.
"""

from dataclasses import dataclass
from typing import Any, Optional, Sequence

from robot_sm.parameters import ConfigurationError, defaults, Param, Settings, validate
from robot_sm.teleop.controller import HANDS

#: Values of ``twist_axis``: the twist about fixed world Z, or about the controller's own Z.
TWIST_AXES = ('world_z', 'body_z')


def _below_one(value: float) -> Optional[str]:
    return None if value < 1.0 else 'must be < 1'


TELEOP_PARAMETERS = (
    Param('control_hand', 'left', 'controller whose buttons run the state machine: '
          'secondary (B/Y) = kill, primary (A/X) = run toggle, thumbstick click = reset',
          choices=HANDS),
    Param('arm_hand', 'right', 'controller whose pose, squeeze and trigger drive the arm',
          choices=HANDS),
    Param('button_threshold', 0.5, 'a button value at or above this presses it', minimum=0.0),
    Param('button_release_threshold', 0.5, 'a pressed button stays pressed while at or above '
          'this (<= button_threshold)', minimum=0.0),
    Param('activate_frames', 2, 'ticks a press must last to register', minimum=1),
    Param('deactivate_frames', 2, 'ticks a release must last to register', minimum=1),
    Param('reset_on_input_loss', True, 'emit one reset pulse when the control inputs drop out'),
    Param('position_scale', 1.0, 'end-effector metres per metre of hand motion', minimum=0.0,
          exclusive_minimum=True),
    Param('squeeze_threshold', 0.5, 'squeeze above this engages the clutch', minimum=0.0,
          check=_below_one),
    Param('require_squeeze', True, 'engage only while squeezing; false: whenever RUNNING'),
    Param('home_position', (), 'clutch fallback home [x, y, z] in base_frame (m); empty: the '
          'end effector at initial_arm_positions', kind='float_list',
          check=lambda v: None if len(v) in (0, 3) else 'must be empty or hold 3 numbers'),
    Param('twist_axis', 'world_z', 'axis of the wrist-roll twist: world_z (fixed vertical) or '
          "body_z (the controller's own Z)", choices=TWIST_AXES),
    Param('roll_offset', 0.0, 'roll channel (rad) before the first engagement and after reset'),
    Param('roll_sign', 1.0, 'direction of the roll channel: 1 or -1',
          check=lambda v: None if v in (1.0, -1.0) else 'must be 1 or -1'),
    Param('wrap_roll', False, 'wrap the roll channel to (-pi, pi]'),
    Param('gripper_deadzone', 0.05, 'released-end trigger deadzone', minimum=0.0,
          check=_below_one),
    Param('max_joint_speed', 3.0, 'largest joint speed of the commands (rad/s): a reset or a '
          'target coming back into reach is a motion, not a jump; 0: no limit', minimum=0.0),
    Param('base_teleop', False, 'drive the base from a thumbstick on teleoperation/cmd_vel'),
    Param('base_hand', 'left', 'controller whose thumbstick drives the base', choices=HANDS),
    Param('base_linear_scale', 0.5, 'forward speed (m/s) at full thumbstick y'),
    Param('base_angular_scale', -1.0, 'yaw rate (rad/s) at full thumbstick x (negative: '
          'pushing right turns clockwise)'),
    Param('base_deadzone', 0.1, 'thumbstick deadzone for the base', minimum=0.0,
          check=_below_one),
)

IK_PARAMETERS = (
    Param('ee_frame', 'gripper_tcp', 'URDF frame whose position the IK controls'),
    Param('arm_joints', ('shoulder_pan', 'shoulder_lift', 'elbow_flex', 'wrist_flex'),
          'joints that track the target position', kind='str_list'),
    Param('roll_joint', 'wrist_roll', 'joint driven by the roll channel'),
    Param('gripper_joint', 'gripper', 'joint driven by the gripper channel'),
    Param('gripper_offset', 1.0, 'gripper joint position when open (closedness 0)'),
    Param('gripper_scale', -1.0, 'gripper joint change from open to closed (closedness 1)'),
    Param('initial_arm_positions', (0.0, 0.0, 0.3, 0.5), 'arm joint positions the IK starts '
          'from (rad, arm_joints order); the first command holds them', kind='float_list'),
    Param('ik_damping', 0.01, 'base damping of the least-squares IK step (m); the squared '
          'position error is added to it', minimum=0.0, exclusive_minimum=True),
    Param('ik_max_iterations', 10, 'IK iterations per tick at most', minimum=1),
    Param('ik_tolerance', 1e-4, 'IK stops below this position error (m)', minimum=0.0,
          exclusive_minimum=True),
    Param('ik_max_step', 0.2, 'largest joint change in one IK iteration (rad)', minimum=0.0,
          exclusive_minimum=True),
)

_SPECS = {spec.name: spec for spec in (*TELEOP_PARAMETERS, *IK_PARAMETERS)}
_teleop_default = defaults(TELEOP_PARAMETERS)
_ik_default = defaults(IK_PARAMETERS)


def checked(name: str, value: Any) -> Any:
    """
    Return ``value`` checked and converted by the spec of the teleop parameter ``name``.

    :raises ConfigurationError: naming the parameter, as the node would.
    """
    return validate(_SPECS[name], value)


@dataclass(frozen=True)
class TeleopSettings(Settings):
    """Everything configurable about the pipelines (the IK's settings: :class:`IkSettings`)."""

    SPECS = TELEOP_PARAMETERS

    control_hand: str = _teleop_default('control_hand')
    arm_hand: str = _teleop_default('arm_hand')
    button_threshold: float = _teleop_default('button_threshold')
    button_release_threshold: float = _teleop_default('button_release_threshold')
    activate_frames: int = _teleop_default('activate_frames')
    deactivate_frames: int = _teleop_default('deactivate_frames')
    reset_on_input_loss: bool = _teleop_default('reset_on_input_loss')
    position_scale: float = _teleop_default('position_scale')
    squeeze_threshold: float = _teleop_default('squeeze_threshold')
    require_squeeze: bool = _teleop_default('require_squeeze')
    #: Fallback home of the clutch (base frame); empty: the IK's end effector at its start pose.
    home_position: Sequence[float] = _teleop_default('home_position')
    twist_axis: str = _teleop_default('twist_axis')
    roll_offset: float = _teleop_default('roll_offset')
    roll_sign: float = _teleop_default('roll_sign')
    wrap_roll: bool = _teleop_default('wrap_roll')
    gripper_deadzone: float = _teleop_default('gripper_deadzone')
    #: Largest joint speed of the commands (rad/s, or m/s for a prismatic joint); 0: no limit.
    max_joint_speed: float = _teleop_default('max_joint_speed')
    base_teleop: bool = _teleop_default('base_teleop')
    base_hand: str = _teleop_default('base_hand')
    base_linear_scale: float = _teleop_default('base_linear_scale')
    base_angular_scale: float = _teleop_default('base_angular_scale')
    base_deadzone: float = _teleop_default('base_deadzone')

    def __post_init__(self) -> None:
        """Reject values the pipelines cannot work with (:class:`ConfigurationError`)."""
        super().__post_init__()
        if self.button_release_threshold > self.button_threshold:
            raise ConfigurationError(
                "parameter 'button_release_threshold' must be <= button_threshold "
                f'(got {self.button_release_threshold!r})')


@dataclass(frozen=True)
class IkSettings(Settings):
    """The IK's frames, joints and solver settings (:class:`~robot_sm.teleop.ik.PositionIk`)."""

    SPECS = IK_PARAMETERS

    ee_frame: str = _ik_default('ee_frame')
    arm_joints: Sequence[str] = _ik_default('arm_joints')
    roll_joint: str = _ik_default('roll_joint')
    gripper_joint: str = _ik_default('gripper_joint')
    gripper_offset: float = _ik_default('gripper_offset')
    gripper_scale: float = _ik_default('gripper_scale')
    #: Arm joint positions to start from (``arm_joints`` order); None: the model's neutral pose.
    initial_arm_positions: Optional[Sequence[float]] = None
    ik_damping: float = _ik_default('ik_damping')
    ik_max_iterations: int = _ik_default('ik_max_iterations')
    ik_tolerance: float = _ik_default('ik_tolerance')
    ik_max_step: float = _ik_default('ik_max_step')
