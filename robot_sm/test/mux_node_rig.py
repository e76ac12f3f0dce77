"""What the mux node's tests share: a mux under test with recorders, streams of commands."""

import pathlib
import threading
import time
from typing import Any, Dict, List, Optional

from diagnostic_msgs.msg import DiagnosticArray
from geometry_msgs.msg import Twist, TwistStamped, Vector3
import pytest
from robot_sm import qos
from robot_sm.nodes.robot_control_mux import RobotControlMux
from robot_sm.testing import Recorder, RosHarness
from robot_sm_msgs.msg import OperationMode
from robot_sm_msgs.srv import SetOperationMode
from std_msgs.msg import String
from std_srvs.srv import SetBool

STOPPED, AUTONOMOUS, TELEOPERATION = (OperationMode.STOPPED, OperationMode.AUTONOMOUS,
                                      OperationMode.TELEOPERATION)
TICK = 0.05  # default update_frequency 20 Hz
WAIT = 10.0  # a limit for what will happen (discovery on a busy machine), never a bound


def twist(x: float = 0.0, yaw: float = 0.0) -> Twist:
    return Twist(linear=Vector3(x=x), angular=Vector3(z=yaw))


def is_zero(msg: Any) -> bool:
    t = msg.twist if isinstance(msg, TwistStamped) else msg
    return not any((t.linear.x, t.linear.y, t.linear.z, t.angular.x, t.angular.y, t.angular.z))


class Stream:
    """Publish a message at a fixed rate from the probe node; ``message = None`` pauses it."""

    def __init__(self, ros: RosHarness, msg_type: Any, topic: str, message: Any,
                 rate: float = 50.0) -> None:
        self._lock = threading.Lock()
        self._message = message
        self.last_sent = 0.0
        #: When each message went out (monotonic s): a loaded test process pauses its stream.
        self.sent: List[float] = []
        self.publisher = ros.publisher(msg_type, topic)
        ros.probe.create_timer(1.0 / rate, self._send)

    def _send(self) -> None:
        with self._lock:
            if self._message is not None:
                self.publisher.publish(self._message)
                self.last_sent = time.monotonic()
                self.sent.append(self.last_sent)

    def longest_pause(self, since: float, until: float) -> float:
        """Return the longest time between ``since`` and ``until`` without a message sent."""
        with self._lock:
            times = [since, *(t for t in self.sent if since < t < until), until]
        return max(later - earlier for earlier, later in zip(times, times[1:]))

    def switch(self, message: Any) -> float:
        """Publish ``message`` from now on; return when the previous one was last sent."""
        with self._lock:
            self._message = message
            return self.last_sent


class Mux:
    """A mux node under test with recorders on its outputs."""

    def __init__(self, ros: RosHarness, parameters: Optional[Dict[str, Any]] = None,
                 output: Any = Twist) -> None:
        self.ros = ros
        self.cmd_vel: Recorder[Any] = ros.record(output, 'cmd_vel')
        self.node = ros.start_node(RobotControlMux, parameters=parameters)
        self.modes: Recorder[OperationMode] = ros.record(
            OperationMode, 'robot_sm/operation_mode', qos.STATE)
        # Started: STOPPED (with the e-stop engaged if a latch file said so).
        self.modes.wait_for(lambda m: m.mode == STOPPED, timeout=WAIT)

    def wait_mode(self, mode: int, estop: bool = False, after: Optional[float] = None,
                  timeout: float = WAIT) -> float:
        """Wait for an operation_mode message; return its arrival time."""
        since = time.monotonic() - 0.5 if after is None else after
        self.modes.wait_for(lambda m: m.mode == mode and m.emergency_stop == estop,
                            timeout=timeout, after=since)
        return next(t for t, m in self.modes.stamped
                    if t >= since and m.mode == mode and m.emergency_stop == estop)

    def set_mode(self, mode: int, estop: bool = False) -> Any:
        request = SetOperationMode.Request()
        request.operation_mode = OperationMode(mode=mode, emergency_stop=estop)
        return self.ros.call(SetOperationMode, 'robot_sm/set_operation_mode', request)

    def estop(self, engage: bool) -> Any:
        return self.ros.call(SetBool, 'robot_sm/emergency_stop', SetBool.Request(data=engage))

    def wait_cmd(self, predicate: Any, after: float, timeout: float = WAIT) -> float:
        """Wait for a cmd_vel message matching ``predicate``; return its arrival time."""
        self.cmd_vel.wait_for(predicate, timeout=timeout, after=after)
        return next(t for t, m in self.cmd_vel.stamped if t >= after and predicate(m))

    def cmd_since(self, t: float) -> List[Any]:
        return self.cmd_vel.since(t)


def linear_x(value: float) -> Any:
    return lambda m: not isinstance(m, TwistStamped) and m.linear.x == pytest.approx(value)


def mux_status(diagnostics: Recorder[DiagnosticArray], mux: Mux, after: float,
               predicate: Any = lambda status: True) -> Any:
    """Wait for a diagnostics status of ``mux`` matching ``predicate``; return it."""
    name = mux.node.get_fully_qualified_name()
    array = diagnostics.wait_for(
        lambda a: any(s.hardware_id == name and predicate(s) for s in a.status),
        after=after, timeout=WAIT)
    return next(s for s in array.status if s.hardware_id == name and predicate(s))


CONFIG = pathlib.Path(__file__).resolve().parents[1] / 'config'


def entries(group: str, **named: Dict[str, Any]) -> Dict[str, Any]:
    """Return ``{group: {name: fields}}`` as flat parameters, as ROS keeps a parameter file."""
    return {f'{group}.{name}.{field}': value
            for name, fields in named.items() for field, value in fields.items()}


INPUTS = entries(
    'inputs',
    navigation={'topic': 'nav_vel', 'timeout': 0.5, 'priority': 10, 'class': 'autonomy'},
    docking={'topic': 'dock_vel', 'timeout': 0.3, 'priority': 20, 'class': 'autonomy'},
    joystick={'topic': 'joy_vel', 'timeout': 0.5, 'priority': 100, 'class': 'teleoperation',
              'takeover': True})
LOCKS = entries('locks', pause={'topic': 'pause_navigation', 'timeout': 0.0, 'priority': 50},
                safety={'topic': 'safety_ok', 'timeout': 0.3, 'priority': 200})


def selected(ros: RosHarness) -> Recorder[String]:
    return ros.record(String, 'robot_sm/selected_input', qos.STATE)
