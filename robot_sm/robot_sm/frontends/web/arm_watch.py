"""
The arm panel's link to a teleop node in the robot's namespace, looked for now and then.

While a ``teleop_retargeting`` node runs in the namespace, :class:`ArmWatch` reads its parameters
once (its ``get_parameters`` service: the arm hand, the squeeze axis and threshold, the input
timeouts, the end-effector frame, the URDF), reads the arm's URDF (``robot_description``, else
``urdf_path``, else the one shipped with the package, as the node does), follows the teleop
state, the clutch target, the arm hand's controller streams and ``joint_states``, and hands the
arm view (:mod:`~robot_sm.frontends.web.arm_view`) to ``sink`` a few times a second. When the
node is gone the panel is told so. Everything slow (the URDF, the forward kinematics) runs on the
bridge's poll thread, never in a subscription's callback.
"""

import logging
import math
import pathlib
import threading
import time
from typing import Any, Callable, Dict, List, Optional

from geometry_msgs.msg import PoseStamped
from rcl_interfaces.msg import ParameterType
from rcl_interfaces.srv import GetParameters
from rclpy.node import Node
from rclpy.qos import HistoryPolicy, QoSProfile, ReliabilityPolicy
from robot_sm import qos
from robot_sm.frontends.web.arm_view import ArmState, TeleopSetup
from robot_sm.resources import share_directory
from robot_sm_control import ControlType
from robot_sm_msgs.msg import ExecutionState
from sensor_msgs.msg import JointState, Joy

LOG = logging.getLogger('robot_sm.web')
#: The teleop node's name, and the parameters the arm view reads of it.
TELEOP_NODE = 'teleop_retargeting'
PARAMETERS = ['arm_hand', 'axis_squeeze', 'squeeze_threshold', 'require_squeeze',
              'input_timeout', 'input_tolerance', 'ee_frame', 'robot_description', 'urdf_path']
#: Newest only, whatever the publisher's reliability.
NEWEST = QoSProfile(history=HistoryPolicy.KEEP_LAST, depth=1,
                    reliability=ReliabilityPolicy.BEST_EFFORT)
#: Seconds between two looks for the teleop node, and between two views sent.
LOOK_PERIOD = 2.0
VIEW_PERIOD = 0.2
#: Seconds the node's parameters are waited for before the defaults are taken.
PARAMETERS_TIMEOUT = 3.0


def parameter_value(value: Any) -> Any:
    """Return a rcl_interfaces/ParameterValue as Python (None when not set)."""
    return {ParameterType.PARAMETER_BOOL: lambda: value.bool_value,
            ParameterType.PARAMETER_INTEGER: lambda: value.integer_value,
            ParameterType.PARAMETER_DOUBLE: lambda: value.double_value,
            ParameterType.PARAMETER_STRING: lambda: value.string_value}.get(
        value.type, lambda: None)()


class ArmWatch:
    """A teleop node of ``namespace``, looked for and followed on ``node``."""

    def __init__(self, node: Node, namespace: str, sink: Callable[[str, Any], None]) -> None:
        self._node = node
        self._namespace = namespace
        self._sink = sink
        self._lock = threading.Lock()
        self._arm: Optional[ArmState] = None
        self._asked: Optional[Any] = None
        self._asked_at = 0.0
        self._found = False
        self._looked = -LOOK_PERIOD
        self._shown = 0.0
        self._subscriptions: List[Any] = []

    def poll(self, now: float) -> None:
        """Look for the node, set the view up, hand it on (the bridge's poll thread)."""
        if now - self._looked >= LOOK_PERIOD:
            self._looked = now
            found = (TELEOP_NODE, self._namespace) in self._node.get_node_names_and_namespaces()
            if found != self._found:
                self._found = found
                if not found:
                    self._sink('arm', {'present': False})
        if not self._found:
            return
        if self._arm is None:
            self._set_up(now)
        elif now - self._shown >= VIEW_PERIOD:
            self._shown = now
            with self._lock:
                view = self._arm.view(now, TELEOP_NODE)
            self._sink('arm', view)

    def _set_up(self, now: float) -> None:
        """Ask the node's parameters; once answered (or not in time), follow the arm."""
        if self._asked is None:
            name = f"{self._namespace.rstrip('/')}/{TELEOP_NODE}/get_parameters"
            client = self._node.create_client(GetParameters, name)
            self._asked = client.call_async(GetParameters.Request(names=PARAMETERS))
            self._asked_at = now
            return
        if not self._asked.done() and now - self._asked_at < PARAMETERS_TIMEOUT:
            return
        values: Dict[str, Any] = {}
        if self._asked.done() and self._asked.result() is not None:
            values = {name: parameter_value(value) for name, value in
                      zip(PARAMETERS, self._asked.result().values)}
        setup = TeleopSetup.from_parameters({k: v for k, v in values.items() if v is not None})
        try:
            self._follow(setup)
        except (OSError, ValueError) as error:
            LOG.warning('the arm of %s cannot be shown: %s', self._namespace, error)
            self._sink('arm', {'present': True, 'node': TELEOP_NODE, 'state': '',
                               'clutch': None, 'error': None, 'joints': [],
                               'note': f'the arm cannot be shown: {error}'})
            self._found = False  # looked for again later

    def _follow(self, setup: TeleopSetup) -> None:
        from robot_sm.sim.arm_model import ArmModel  # pinocchio: only when an arm is shown
        urdf = setup.robot_description or pathlib.Path(
            setup.urdf_path or share_directory() / 'config' / 'so101_arm.urdf').read_text()
        model = ArmModel(urdf)
        lower, upper = model.limits(model.joint_names).limits(ControlType.POSITION)
        limits = {name: (float(lo) if math.isfinite(lo) else None,
                         float(hi) if math.isfinite(hi) else None)
                  for name, lo, hi in zip(model.joint_names, lower, upper)}
        frame = setup.ee_frame
        self._arm = ArmState(setup, limits, lambda positions: model.frame_position(
            frame, positions))
        hand = setup.arm_hand
        node = self._node
        self._subscriptions = [
            node.create_subscription(ExecutionState, 'teleop/execution_state',
                                     self._on_state, qos.STATE),
            node.create_subscription(PoseStamped, 'teleop/ee_target', self._on_target, NEWEST),
            node.create_subscription(Joy, f'xr/{hand}/joy', self._on_joy, NEWEST),
            node.create_subscription(PoseStamped, f'xr/{hand}/pose', self._on_pose, NEWEST),
            node.create_subscription(JointState, 'joint_states', self._on_joints, NEWEST),
        ]

    def _on_state(self, msg: ExecutionState) -> None:
        with self._lock:
            if self._arm is not None:
                self._arm.state = int(msg.state)

    def _on_target(self, msg: PoseStamped) -> None:
        p = msg.pose.position
        with self._lock:
            if self._arm is not None:
                self._arm.take_target((p.x, p.y, p.z))

    def _on_joy(self, msg: Joy) -> None:
        with self._lock:
            if self._arm is not None:
                self._arm.take_joy(list(msg.axes))

    def _on_pose(self, _: PoseStamped) -> None:
        with self._lock:
            if self._arm is not None:
                self._arm.take_pose(time.monotonic())

    def _on_joints(self, msg: JointState) -> None:
        with self._lock:
            if self._arm is not None:
                self._arm.take_joints(list(msg.name), list(msg.position))
