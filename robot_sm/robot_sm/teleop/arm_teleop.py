"""
Teleop of an SO-101-class arm: controllers in, execution state, action and joint targets out.

Wires the default pipelines and runs them with the IK, one :meth:`ArmTeleop.tick` per control
period:

- control pipeline: three debounced selectors on the ``control_hand`` controller — kill =
  secondary button (B/Y), run toggle = primary button (A/X), reset = thumbstick click — into
  :class:`~robot_sm.teleop.state_manager.DefaultTeleopStateManager`;
- retargeting pipeline: clutch, roll and gripper retargeters on the ``arm_hand`` controller (with
  the optional measured end-effector and base poses) flattened by the reorderer into the action
  ``[pos_x, pos_y, pos_z, roll, gripper]``;
- IK: while RUNNING, the action becomes joint positions, each joint moving at most
  ``max_joint_speed`` towards the IK solution (a reset's return to the home pose, or a target
  coming back into reach, is a motion, never a jump); otherwise no joint target is produced and
  the last one holds;
- optionally the ``base_hand`` thumbstick as a base velocity command.
"""

from dataclasses import dataclass
from typing import Optional, Sequence, Tuple

import numpy as np

from robot_sm.teleop.base_teleop import BaseTeleop
from robot_sm.teleop.checks import Vector, vector
from robot_sm.teleop.clutch import ClutchRetargeter, EE_POSE_ELEMENTS
from robot_sm.teleop.controller import ControllerSample
from robot_sm.teleop.execution import ExecutionState
from robot_sm.teleop.graph import ConnectedRetargeter, controllers_source, OutputCombiner
from robot_sm.teleop.graph import Source, ValueInput
from robot_sm.teleop.gripper import GripperRetargeter
from robot_sm.teleop.ik import PositionIk
from robot_sm.teleop.reorderer import TensorReorderer
from robot_sm.teleop.roll import RollRetargeter
from robot_sm.teleop.selector import create_bool_selector, SelectorFn
from robot_sm.teleop.session import TeleopSession
from robot_sm.teleop.settings import TeleopSettings
from robot_sm.teleop.state_manager import DefaultTeleopStateManager

#: Longest time step (s) the joint speed limit grants one tick, however late it comes.
MAX_TICK_STEP = 0.1

#: Element names of the action vector, in order.
ACTION_ELEMENTS: Tuple[str, ...] = ('pos_x', 'pos_y', 'pos_z', 'roll_value', 'gripper_value')


@dataclass(frozen=True)
class TeleopOutput:
    """The result of one tick."""

    state: ExecutionState
    reset: bool
    #: ``[pos_x, pos_y, pos_z, roll, gripper]``, float32.
    action: np.ndarray
    #: Clutch target ``[x, y, z, qx, qy, qz, qw]`` in the base frame.
    ee_pose: np.ndarray
    #: Joint positions in :attr:`ArmTeleop.joint_names` order; only while RUNNING.
    joint_positions: Optional[np.ndarray]
    #: ``(linear x, angular z)`` for the base, or None when nothing is to be sent.
    base_velocity: Optional[Tuple[float, float]]


def build_control_pipeline(controllers: Source, settings: TeleopSettings) -> OutputCombiner:
    """Return the selectors and state manager on the ``control_hand`` controller."""
    hand = controllers.output(settings.control_hand)

    def selector(name: str, selector_fn: SelectorFn) -> ConnectedRetargeter:
        return create_bool_selector(
            hand, name=name, selector_fn=selector_fn, threshold=settings.button_threshold,
            release_threshold=settings.button_release_threshold,
            activate_frames=settings.activate_frames,
            deactivate_frames=settings.deactivate_frames)

    kill = selector('kill_selector', lambda s: s.secondary_click)
    toggle = selector('run_toggle_selector', lambda s: s.primary_click)
    reset = selector('reset_selector', lambda s: s.thumbstick_click)
    manager = DefaultTeleopStateManager(reset_on_input_loss=settings.reset_on_input_loss)
    connected = manager.connect({
        manager.INPUT_KILL: kill.output('value'),
        manager.INPUT_RUN_TOGGLE: toggle.output('value'),
        manager.INPUT_RESET: reset.output('value'),
    })
    return OutputCombiner({
        manager.OUTPUT_STATE: connected.output(manager.OUTPUT_STATE),
        manager.OUTPUT_RESET: connected.output(manager.OUTPUT_RESET),
    }, name='control')


def build_retargeting_pipeline(
    controllers: Source, robot_ee_pose: ValueInput, robot_base_pose: ValueInput,
    settings: TeleopSettings, home_position: Vector,
) -> OutputCombiner:
    """Return clutch, roll and gripper on the ``arm_hand`` controller and the action reorderer."""
    hand = controllers.output(settings.arm_hand)
    clutch = ClutchRetargeter(
        'ee_pose', home_position, position_scale=settings.position_scale,
        squeeze_threshold=settings.squeeze_threshold, require_squeeze=settings.require_squeeze)
    roll = RollRetargeter(
        'roll', twist_axis=settings.twist_axis, roll_offset=settings.roll_offset,
        roll_sign=settings.roll_sign, squeeze_threshold=settings.squeeze_threshold,
        require_squeeze=settings.require_squeeze, wrap_roll=settings.wrap_roll)
    gripper = GripperRetargeter('gripper', deadzone=settings.gripper_deadzone)
    connected_clutch = clutch.connect({
        clutch.CONTROLLER_INPUT: hand,
        clutch.ROBOT_EE_POSE_INPUT: robot_ee_pose.output(ValueInput.VALUE),
        clutch.ROBOT_BASE_POSE_INPUT: robot_base_pose.output(ValueInput.VALUE),
    })
    connected_roll = roll.connect({roll.CONTROLLER_INPUT: hand})
    connected_gripper = gripper.connect({gripper.CONTROLLER_INPUT: hand})
    reorderer = TensorReorderer(
        input_config={'ee_pose': EE_POSE_ELEMENTS, 'roll_command': [RollRetargeter.ELEMENT],
                      'gripper_command': [GripperRetargeter.ELEMENT]},
        output_order=ACTION_ELEMENTS,
        name='action_reorderer',
        input_types={'ee_pose': 'array', 'roll_command': 'scalar',
                     'gripper_command': 'scalar'})
    action = reorderer.connect({
        'ee_pose': connected_clutch.output(clutch.OUTPUT),
        'roll_command': connected_roll.output(roll.OUTPUT),
        'gripper_command': connected_gripper.output(gripper.OUTPUT),
    })
    return OutputCombiner({
        'action': action.output(reorderer.OUTPUT),
        'ee_pose': connected_clutch.output(clutch.OUTPUT),
    }, name='retargeting')


class ArmTeleop:
    """Control pipeline, retargeting pipeline, IK and base teleop, ticked together."""

    def __init__(self, settings: TeleopSettings, ik: PositionIk) -> None:
        self.settings = settings
        self.ik = ik
        home = vector(settings.home_position, 3, 'home_position') if settings.home_position \
            else ik.forward()
        self._controllers = controllers_source()
        self._ee_input = ValueInput('robot_ee_pose')
        self._base_input = ValueInput('robot_base_pose')
        self.session = TeleopSession(
            build_retargeting_pipeline(self._controllers, self._ee_input, self._base_input,
                                       settings, home),
            build_control_pipeline(self._controllers, settings))
        self._max_speed = settings.max_joint_speed
        self._command = ik.positions
        self._last_time: Optional[float] = None
        self._base = None
        if settings.base_teleop:
            self._base = BaseTeleop(linear_scale=settings.base_linear_scale,
                                    angular_scale=settings.base_angular_scale,
                                    deadzone=settings.base_deadzone)

    @property
    def joint_names(self) -> Sequence[str]:
        """Names of the joints in :attr:`TeleopOutput.joint_positions`."""
        return self.ik.joint_names

    def tick(
        self,
        now: float,
        left: Optional[ControllerSample],
        right: Optional[ControllerSample],
        robot_ee_pose: Optional[np.ndarray] = None,
        robot_base_pose: Optional[np.ndarray] = None,
        halted: bool = False,
    ) -> TeleopOutput:
        """
        Run one tick at ``now`` (seconds) with this tick's controller samples (None = absent).

        ``robot_ee_pose`` / ``robot_base_pose`` are optional 4x4 world ← end-effector and
        world ← base transforms. ``halted`` (the robot's emergency stop) counts as both
        controllers lost: STOPPED with one reset pulse, and after it only the operator's run
        toggle starts again.
        """
        if halted:
            left = right = None
        outputs = self.session.step({
            self._controllers.name: {'left': left, 'right': right},
            self._ee_input.name: {ValueInput.VALUE: robot_ee_pose},
            self._base_input.name: {ValueInput.VALUE: robot_base_pose},
        }, now)
        assert self.session.last_context is not None
        events = self.session.last_context.events
        action: np.ndarray = outputs['action']
        elapsed = 0.0 if self._last_time is None else now - self._last_time
        step_time = min(max(elapsed, 0.0), MAX_TICK_STEP)
        self._last_time = now
        joints = None
        if events.state is ExecutionState.RUNNING:
            solution = self.ik.solve(action[:3], float(action[3]), float(action[4]))
            if self._max_speed > 0.0:
                reach = self._max_speed * step_time
                solution = self._command + np.clip(solution - self._command, -reach, reach)
            self._command = solution
            joints = solution.copy()
        base = None
        if self._base is not None:
            base = self._base.update(events.state, left if self.settings.base_hand == 'left'
                                     else right)
        return TeleopOutput(events.state, events.reset, action, outputs['ee_pose'], joints, base)
