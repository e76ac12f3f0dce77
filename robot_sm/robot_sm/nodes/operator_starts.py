"""
An operator's start brings the mux into AUTONOMOUS, which the activity needs.

After a (re)start the mux is STOPPED until an operator selects a mode (the restart interlock,
README "Safety"): before, a start of exploration or waypoint following was accepted and nothing
moved, with no word why. A start is an operator's deliberate request for autonomous motion, so
when the state machine is idle and the mux is STOPPED with its e-stop released,
:class:`AutonomyForStarts` asks the mux for AUTONOMOUS first and starts the activity only once
the mux agreed. If the mux refuses (its supervisor not heard yet) the start is refused with the
mux's reason and nothing changes; if the state machine then refuses the start, the mux is put
back to STOPPED. A simple goal (a topic: nobody to answer) that a state took does the same
afterwards, and a refusal is published on ``robot_sm/state_outcome`` and stops the goal.

Nothing else changes: the e-stop still refuses every start ("Emergency Stop") and only
``robot_sm/emergency_stop`` releases it, teleoperation still refuses starts, and a mode an
operator selected (TELEOPERATION, or AUTONOMOUS) is never changed by a start.
"""

from typing import Any, Callable, Optional, Tuple

from rclpy.node import Node
from robot_sm.mux.control_mux import Answer, Mode
from robot_sm.qos import SERVICES
from robot_sm.statemachine.cycle import Role
from robot_sm.statemachine.machine import StateMachine
from robot_sm_msgs.srv import SetOperationMode


#: How the mux answers a request for the mode it is in.
ALREADY = 'mode is already'


class AutonomyForStarts:
    """Ask the mux for AUTONOMOUS when an operator starts an activity in STOPPED."""

    def __init__(self, node: Node, machine: StateMachine, timeout: float,
                 report: Callable[[str], None]) -> None:
        """Use the mux's ``robot_sm/set_operation_mode``; ``report`` publishes an outcome."""
        self._node = node
        self._machine = machine
        self._timeout = timeout
        self._report = report
        self._client = node.create_client(SetOperationMode, 'robot_sm/set_operation_mode',
                                          qos_profile=SERVICES)
        #: The mux's mode and e-stop as last published; None before the first.
        self._mode: Optional[Tuple[int, bool]] = None

    def on_operation_mode(self, mode: int, emergency_stop: bool) -> None:
        """Take the mux's mode (``robot_sm/operation_mode``)."""
        self._mode = (mode, emergency_stop)

    def stopped_and_idle(self) -> bool:
        """
        Return whether a start now needs AUTONOMOUS first: the mux STOPPED, the machine idle.

        A mode not heard yet counts as STOPPED: the mux's answer then tells.
        """
        state = self._machine.state
        return (self._mode in (None, (int(Mode.STOPPED), False)) and state is not None
                and state.role is Role.IDLE and self._machine.pending is None)

    async def start(self, start: Callable[[], Answer]) -> Answer:
        """Run ``start`` (a start request to the machine), in AUTONOMOUS if it was STOPPED."""
        if not self.stopped_and_idle():
            return start()
        switched = await self._set_mode(Mode.AUTONOMOUS)
        if not switched.success:
            return Answer(False, f'the mux refused AUTONOMOUS: {switched.message}')
        selected = not switched.message.startswith(ALREADY)
        answer = start()
        if not answer.success and selected:
            await self._set_mode(Mode.STOPPED)  # a refused start changes nothing
        if not answer.success or not selected:
            return answer
        self._node.get_logger().info(f'{answer.message}: the mux was STOPPED, AUTONOMOUS '
                                     'selected for it')
        return Answer(True, f'{answer.message} (the mux was STOPPED: AUTONOMOUS selected)')

    def take_simple_goal(self, take: Callable[[], bool]) -> None:
        """Deliver a simple goal with ``take``; taken in STOPPED, ask the mux for AUTONOMOUS."""
        needed = self.stopped_and_idle()
        if take() and needed and self._node.executor is not None:
            self._node.executor.create_task(self._autonomy_for_simple_goal)

    async def _autonomy_for_simple_goal(self) -> None:
        switched = await self._set_mode(Mode.AUTONOMOUS)
        if switched.success:
            if not switched.message.startswith(ALREADY):
                self._node.get_logger().info('simple goal: the mux was STOPPED, AUTONOMOUS '
                                             'selected')
            return
        message = f'simple goal stopped: the mux refused AUTONOMOUS: ' \
                  f'{switched.message}'
        self._node.get_logger().warning(message)
        self._machine.stop_simple_goal()
        self._report(message)

    async def _set_mode(self, mode: Mode) -> Answer:
        """Ask the mux for ``mode``; the answer, or why there is none."""
        if not self._client.service_is_ready():
            return Answer(False, 'robot_sm/set_operation_mode is not available')
        request = SetOperationMode.Request()
        request.operation_mode.mode = int(mode)
        future = self._client.call_async(request)
        timer = self._node.create_timer(self._timeout, future.cancel)
        try:
            response: Any = await future
        finally:
            self._node.destroy_timer(timer)
            self._client.remove_pending_request(future)
        if response is None:
            return Answer(False, f'the mux did not answer within {self._timeout:g} s')
        return Answer(bool(response.success), str(response.message))
