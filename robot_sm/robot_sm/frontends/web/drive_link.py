"""
The web pages' way to drive one robot: the operators' own stream, and the mux's speed limits.

:class:`DriveLink` publishes the velocities of the pages that drive on
``robot_sm/operator_cmd_vel`` (robot_sm_msgs/OperatorTwist, ``by`` the page's operator, as its
login session names it: never a name the page sends), and reads the mux's
``max_linear_velocity`` and ``max_angular_velocity`` (its ``get_parameters`` service, the
standard one of every node) so that a page offers speeds within them
(:mod:`~robot_sm.frontends.web.drive`). The mux checks who holds control: it drives with the
stream of the holder only, in TELEOPERATION.
"""

import threading
from typing import Any, Callable, Optional

from rcl_interfaces.srv import GetParameters
from rclpy.node import Node
from robot_sm import qos
from robot_sm.contract import OPERATOR_CMD_VEL
from robot_sm.frontends.web.arm_watch import parameter_value
from robot_sm.frontends.web.drive import drive_limits, DriveLimits
from robot_sm_msgs.msg import OperatorTwist

#: The mux's node, and the parameters the pages' speeds are held within.
MUX_NODE = 'robot_control_mux'
LIMITS = ['max_linear_velocity', 'max_angular_velocity']
#: Seconds between two questions while the mux does not answer, and after it did (they may be
#: set anew).
ASK_PERIOD = 2.0
ASKED_AGAIN = 30.0


class DriveLink:
    """The operators' stream of the robot in ``namespace``, and its limits, on ``node``."""

    def __init__(self, node: Node, namespace: str, sink: Callable[[str, Any], None]) -> None:
        self._node = node
        self._sink = sink
        self._publisher = node.create_publisher(OperatorTwist, OPERATOR_CMD_VEL, qos.COMMAND_OUT)
        self._parameters = node.create_client(
            GetParameters, f"{namespace.rstrip('/')}/{MUX_NODE}/get_parameters",
            qos_profile=qos.SERVICES)
        self._lock = threading.Lock()
        #: The speeds pages may drive at: the page's defaults until the mux answers.
        self.limits = DriveLimits()
        self._asked: Optional[Any] = None
        self._due = 0.0
        sink('drive_limits', {**self.limits.view(), 'known': False})

    def publish(self, by: str, linear: float, angular: float) -> None:
        """Publish a page's velocity (m/s forward, rad/s to the left) as operator ``by``."""
        msg = OperatorTwist(by=by)
        msg.header.stamp = self._node.get_clock().now().to_msg()
        msg.twist.linear.x = linear
        msg.twist.angular.z = angular
        with self._lock:  # the pages' event loop, and a silent page's zero: one at a time
            self._publisher.publish(msg)

    def poll(self, now: float) -> None:
        """Ask the mux's limits when due; hand them on once answered (the bridge's poll thread)."""
        asked = self._asked
        if asked is not None and asked.done():
            self._asked = None
            answer = asked.result()
            if answer is not None and len(answer.values) == len(LIMITS):
                linear, angular = (parameter_value(value) for value in answer.values)
                self.limits = drive_limits(linear, angular)
                self._sink('drive_limits', {**self.limits.view(), 'known': True})
                self._due = now + ASKED_AGAIN
        if self._asked is None and now >= self._due and self._parameters.service_is_ready():
            self._asked = self._parameters.call_async(GetParameters.Request(names=LIMITS))
            self._due = now + ASK_PERIOD
        elif self._asked is not None and now >= self._due:
            self._asked = None  # not answered: asked again
