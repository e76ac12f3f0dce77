"""
The command gateway of the state interface: every operator command, checked and done in one call.

``robot_sm/command`` (``robot_sm_msgs/srv/Command``) takes a typed command naming its operator,
checks it (:mod:`robot_sm.gateway.request`) and carries it out inside the suite: the mux's
commands go to the mux (``robot_sm/_mux/command``), waypoint edits and settings to the service
provider (``robot_sm/_service_provider/command``), starts, stops and goals to the state machine
in this process, with the start policy of :mod:`robot_sm.gateway.starts` (AUTONOMOUS selected
for a start made while STOPPED, undone when the start is refused). Commands are carried out one
at a time in arrival order, without blocking the executor (:class:`Turns`); a STOP never waits
for another command. Every command is checked against the control of the robot and written to
the audit log (:mod:`robot_sm.nodes.operator_control`). The RSM-compatible start services,
``stop_2d_nav_goal`` and ``robot_sm/simple_goal`` go through the same code as raw ROS callers,
and so do the activities' actions.
"""

from dataclasses import dataclass, replace
from typing import Any, Awaitable, Callable, Dict, List, Optional, Tuple

from geometry_msgs.msg import Pose as PoseMsg
from rclpy.callback_groups import ReentrantCallbackGroup
from rclpy.node import Node
from rclpy.task import Future
from robot_sm.contract import (
    Activity,
    Code,
    COMMAND,
    Command as Kind,
    FollowingMode,
    KEEP,
    Mode,
    MUX_COMMAND,
    STORE_COMMAND,
    WAYPOINTS,
)
from robot_sm.gateway.control import FREE_COMMANDS
from robot_sm.gateway.request import arguments, checked, Request
from robot_sm.gateway.starts import plan_start, selected_for_start, Situation, StartPlan
from robot_sm.nodes.command_messages import answer, request_of
from robot_sm.nodes.operator_control import OperatorControl
from robot_sm.nodes.turns import Turns
from robot_sm.planar import yaw_from_quaternion
from robot_sm.qos import SERVICES, STATE
from robot_sm.statemachine.cycle import Interrupt, interrupt_target, Role
from robot_sm.statemachine.machine import StateMachine
from robot_sm.waypoints import Pose, RequestError
from robot_sm_msgs.msg import WaypointArray
from robot_sm_msgs.srv import Command
from std_msgs.msg import Bool

#: Seconds between two looks for a service of the suite that is not there (yet).
READY_POLL = 0.05
#: Turns a pose in a frame into the map frame (raises ValueError naming what is missing).
ToMap = Callable[[str, Pose], Pose]


@dataclass(frozen=True)
class Done:
    """How the gateway answered a command."""

    code: Code
    message: str
    changed: bool = True
    #: ADD_WAYPOINT: the new waypoint's id.
    waypoint_id: int = 0
    #: A start that was taken: the id of the run it began (0: none).
    activity_id: int = 0
    #: The command acquired control (nobody held it).
    control_acquired: bool = False

    @property
    def success(self) -> bool:
        """Return whether the command was carried out."""
        return self.code is Code.DONE


class CommandGateway:
    """``robot_sm/command`` and the raw starts, over one state machine in this node."""

    def __init__(self, node: Node, machine: StateMachine, timeout: float, to_map: ToMap,
                 report: Callable[[str], None], control: OperatorControl) -> None:
        """
        Serve the gateway on ``node``; ``report`` publishes an outcome for operators.

        ``control`` holds the control lease and the audit log the commands are checked
        against and written to.
        """
        self._node = node
        self._control = control
        self._machine = machine
        self._timeout = timeout
        self._to_map = to_map
        self._report = report
        self._group = ReentrantCallbackGroup()
        self._mux = node.create_client(Command, MUX_COMMAND, qos_profile=SERVICES,
                                       callback_group=self._group)
        self._store = node.create_client(Command, STORE_COMMAND, qos_profile=SERVICES,
                                         callback_group=self._group)
        self._turns = Turns()
        #: The mux's mode and e-stop as last published; None before the first.
        self.mode: Optional[Tuple[Mode, bool]] = None
        self._following: Optional[Tuple[FollowingMode, bool]] = None
        self.waypoints: Optional[WaypointArray] = None
        self._exploration_interrupt: Optional[bool] = None
        node.create_subscription(WaypointArray, WAYPOINTS, self._on_waypoints, STATE,
                                 callback_group=self._group)
        node.create_subscription(Bool, 'robot_sm/exploration_mode', self._on_exploration_mode,
                                 STATE, callback_group=self._group)
        node.create_service(Command, COMMAND, self._on_command, qos_profile=SERVICES,
                            callback_group=self._group)
        self._handlers: Dict[Kind, Callable[[Any, Request], Awaitable[Done]]] = {
            Kind.SELECT_MODE: self._to_mux,
            Kind.RELEASE_EMERGENCY_STOP: self._to_mux,
            Kind.START_WAYPOINT_FOLLOWING: self._start,
            Kind.START_EXPLORATION: self._start,
            Kind.STOP_WAYPOINT_FOLLOWING: self._stop,
            Kind.STOP_EXPLORATION: self._stop,
            Kind.CANCEL_GOAL: self._stop,
            Kind.GO_TO: self._go_to,
            Kind.PAUSE: self._pause,
            Kind.CONTINUE: self._continue,
            **{kind: self._to_store for kind in (
                Kind.ADD_WAYPOINT, Kind.MOVE_WAYPOINT, Kind.REMOVE_WAYPOINT,
                Kind.SET_WAYPOINT_ROUTINE, Kind.REORDER_WAYPOINT, Kind.RESET_WAYPOINTS,
                Kind.SET_REVERSE)},
        }

    # -- what the gateway knows -----------------------------------------------------------------

    def on_operation_mode(self, mode: int, emergency_stop: bool) -> None:
        """Take the mux's mode (``robot_sm/operation_mode``)."""
        self.mode = (Mode(mode) if mode in Mode._value2member_map_ else Mode.STOPPED,
                     emergency_stop)

    def _on_waypoints(self, msg: WaypointArray) -> None:
        #: The newest waypoint list.
        self.waypoints = msg
        if msg.mode in FollowingMode._value2member_map_:
            self._following = (FollowingMode(msg.mode), bool(msg.reverse))
        if self._machine.paused is not None:
            self._machine.publish_report()  # 'waypoint 3 of 5' follows the list

    def _on_exploration_mode(self, msg: Bool) -> None:
        self._exploration_interrupt = bool(msg.data)

    def _situation(self) -> Situation:
        machine = self._machine
        state = machine.state
        return Situation(
            mode=self.mode[0] if self.mode is not None else None,
            emergency_stop=self.mode is not None and self.mode[1],
            idle=state is not None and state.role is Role.IDLE and machine.pending is None,
            following=self._following, exploration_interrupt=self._exploration_interrupt)

    # -- the service ----------------------------------------------------------------------------

    async def _on_command(self, request: Command.Request,
                          response: Command.Response) -> Command.Response:
        done = await self.execute(request)
        response.waypoint_id = done.waypoint_id
        response.control_acquired = done.control_acquired
        response.control = self._control.state()
        return answer(response, done.code, done.message, done.changed)

    async def execute(self, msg: Any) -> Done:
        """Check and carry out one ``Command`` request, and audit it; never raises."""
        try:
            request = checked(request_of(msg))
        except RequestError as error:
            by = request_of(msg).by
            done = (self._goal_refused(Code.INVALID, f'simple goal ignored: {error}')
                    if msg.command == Kind.GO_TO else
                    Done(Code.INVALID, f'{error}; nothing changed'))
            self._control.record('raw' if by.raw else 'command', by, f'command {msg.command}',
                                 {}, False, Code.INVALID, done.message)
            return done
        kind, by = request.kind, request.by
        if kind is Kind.ENGAGE_EMERGENCY_STOP:
            return await self._to_mux(msg, request)  # never waits its turn; the mux audits it
        if kind in FREE_COMMANDS:
            answer = self._control.control_command(by, kind, request.stale_after)
            return Done(Code.DONE if answer.success else Code.NOT_IN_CONTROL, answer.message)
        await self._turns.take()
        try:
            done = await self._carry_out(msg, request)
        finally:
            self._turns.give()
        self._control.record('raw' if by.raw else 'command', by, kind.label,
                             arguments(request), done.success, done.code, done.message)
        return done

    async def _carry_out(self, msg: Any, request: Request) -> Done:
        """Carry out a command that needs control, once control allows it."""
        kind, by = request.kind, request.by
        decision = self._control.check(by, kind)
        if not decision.allowed:
            if kind is Kind.GO_TO:
                return self._goal_refused(Code.NOT_IN_CONTROL,
                                          f'simple goal ignored: {decision.refusal}')
            return Done(Code.NOT_IN_CONTROL, decision.refusal)
        handler = self._handlers.get(kind)
        if handler is None:
            return Done(Code.REFUSED, f'{kind.label} is not carried out by this suite')
        try:
            done = await handler(msg, request)
        except Exception as error:  # noqa: B902 - a command must be answered, never crash
            self._node.get_logger().error(f'{kind.label} failed: {error!r}')
            done = Done(Code.REFUSED, f'{kind.label} failed in the gateway: {error!r}')
        if decision.acquired:
            if not done.success:  # a refused command leaves control as it was: free
                self._control.undo_acquire(by)
            else:
                self._control.acquired(by, kind)
                done = replace(done, control_acquired=True)
        return done

    # -- forwarding -----------------------------------------------------------------------------

    async def _forward(self, client: Any, msg: Any) -> Done:
        """Send ``msg`` to ``client``'s service; its answer, or why there is none."""
        if not await self._ready(client):
            return Done(Code.UNAVAILABLE, f'{client.srv_name} is not available '
                                          f'(waited {self._timeout:g} s)')
        future = client.call_async(msg)
        timer = self._node.create_timer(self._timeout, future.cancel,
                                        callback_group=self._group)
        try:
            response: Any = await future
        except Exception:  # noqa: B902 - a cancelled future raises on await
            response = None
        finally:
            self._node.destroy_timer(timer)
            client.remove_pending_request(future)
        if response is None:
            return Done(Code.UNAVAILABLE, f'{client.srv_name} did not answer within '
                                          f'{self._timeout:g} s')
        return Done(Code(response.code) if response.code in Code._value2member_map_
                    else Code.REFUSED, str(response.message), bool(response.changed),
                    int(response.waypoint_id))

    async def _ready(self, client: Any) -> bool:
        """Wait up to the timeout for ``client``'s service (a node started again finds it)."""
        if client.service_is_ready():
            return True
        found = Future()

        def look() -> None:
            if client.service_is_ready() and not found.done():
                found.set_result(True)
        timer = self._node.create_timer(READY_POLL, look, callback_group=self._group)
        deadline = self._node.create_timer(
            self._timeout, lambda: found.done() or found.set_result(False),
            callback_group=self._group)
        try:
            return bool(await found)
        finally:
            self._node.destroy_timer(timer)
            self._node.destroy_timer(deadline)

    async def _to_mux(self, msg: Any, request: Request) -> Done:
        return await self._forward(self._mux, msg)

    async def _to_store(self, msg: Any, request: Request) -> Done:
        return await self._forward(self._store, msg)

    async def _mux_mode(self, mode: Mode, by: Any) -> Done:
        """Ask the mux for ``mode`` on behalf of ``by`` (the operator of the command)."""
        return await self._forward(self._mux, Command.Request(
            command=int(Kind.SELECT_MODE), mode=int(mode), by=by))

    async def _store_settings(self, kind: Kind, **fields: Any) -> Done:
        return await self._forward(self._store, Command.Request(command=int(kind), **fields))

    # -- starts, stops and goals ----------------------------------------------------------------

    async def _start(self, msg: Any, request: Request) -> Done:
        following = request.kind is Kind.START_WAYPOINT_FOLLOWING
        plan = plan_start(self._situation(), request.following_mode if following else KEEP,
                          request.reverse, KEEP if following else request.goal_obsolete)
        if plan.refusal:
            return Done(Code.REFUSED, plan.refusal)
        undo: List[Callable[[], Awaitable[Done]]] = []
        if plan.following is not None:
            done = await self._store_settings(Kind.START_WAYPOINT_FOLLOWING,
                                              following_mode=int(plan.following[0]),
                                              reverse=plan.following[1])
            if not done.success:
                return done
            undo.append(lambda: self._put_back_following(plan))
        if plan.exploration_interrupt is not None:
            done = await self._store_settings(Kind.START_EXPLORATION,
                                              goal_obsolete=int(plan.exploration_interrupt))
            if not done.success:
                await self._undo(undo)
                return done
            undo.append(lambda: self._put_back_exploration(plan))
        selected = await self._autonomy_for(plan, undo, msg.by)
        if isinstance(selected, Done):
            return selected
        machine = self._machine
        answer = (machine.start_stop_waypoint_following(True) if following
                  else machine.start_stop_exploration(True))
        if not answer.success:
            await self._undo(undo)
            return Done(Code.REFUSED, answer.message)
        run = machine.runs.current
        return Done(Code.DONE, selected_for_start(answer.message) if selected
                    else answer.message, activity_id=run.activity_id if run is not None else 0)

    async def _autonomy_for(self, plan: StartPlan, undo: List[Callable[[], Awaitable[Done]]],
                            by: Any) -> Any:
        """Select AUTONOMOUS if the plan says so; True if it changed, or the refusal (Done)."""
        if not plan.select_autonomy:
            return False
        done = await self._mux_mode(Mode.AUTONOMOUS, by)
        if not done.success:
            await self._undo(undo)
            return Done(Code.REFUSED, f'the mux refused AUTONOMOUS: {done.message}')
        if done.changed:
            undo.append(lambda: self._mux_mode(Mode.STOPPED, by))
            return True
        return False

    def _put_back_following(self, plan: StartPlan) -> Awaitable[Done]:
        before = plan.following_before or (FollowingMode.SINGLE, False)
        return self._store_settings(Kind.START_WAYPOINT_FOLLOWING,
                                    following_mode=int(before[0]), reverse=before[1])

    def _put_back_exploration(self, plan: StartPlan) -> Awaitable[Done]:
        return self._store_settings(Kind.START_EXPLORATION,
                                    goal_obsolete=int(bool(plan.exploration_before)))

    async def _undo(self, steps: List[Callable[[], Awaitable[Done]]]) -> None:
        """Undo the steps of a refused start, last first."""
        for step in reversed(steps):
            done = await step()
            if not done.success:
                self._node.get_logger().warning(f'a refused start was not undone: '
                                                f'{done.message}')

    async def _stop(self, msg: Any, request: Request) -> Done:
        machine = self._machine
        if request.kind is Kind.CANCEL_GOAL:
            answer = machine.stop_simple_goal()
        elif request.kind is Kind.STOP_WAYPOINT_FOLLOWING:
            answer = machine.start_stop_waypoint_following(False)
        else:
            answer = machine.start_stop_exploration(False)
        return Done(Code.DONE if answer.success else Code.REFUSED, answer.message)

    async def _go_to(self, msg: Any, request: Request) -> Done:
        """Drive to a pose: AUTONOMOUS first if the machine is idle and the mux STOPPED."""
        machine = self._machine
        assert request.checked_pose is not None
        try:
            pose = self._to_map(request.frame, request.checked_pose)
        except (RequestError, ValueError) as error:
            return self._goal_refused(Code.INVALID, f'simple goal ignored: {error}')
        situation = self._situation()
        plan = plan_start(situation)
        if plan.refusal:
            return self._goal_refused(Code.REFUSED, 'simple goal ignored in Emergency Stop')
        state = machine.state
        if state is None or interrupt_target(state.role, Interrupt.SIMPLE_GOAL) is None:
            name = state.name if state is not None else 'no state yet'
            return self._goal_refused(Code.REFUSED, f'simple goal ignored in {name}')
        undo: List[Callable[[], Awaitable[Done]]] = []
        selected = await self._autonomy_for(plan, undo, msg.by)
        if isinstance(selected, Done):
            return self._goal_refused(Code.REFUSED, f'simple goal ignored: {selected.message}')
        if not machine.on_simple_goal(pose):  # it says so itself
            await self._undo(undo)
            name = machine.state.name if machine.state is not None else 'no state yet'
            self._report(f'simple goal ignored in {name}')
            return Done(Code.REFUSED, f'simple goal ignored in {name}')
        run = machine.runs.current
        yaw = yaw_from_quaternion(pose.qx, pose.qy, pose.qz, pose.qw)
        message = f'goal ({pose.x:g}, {pose.y:g}, yaw {yaw:g}) taken'
        return Done(Code.DONE, selected_for_start(message) if selected else message,
                    activity_id=run.activity_id if run is not None else 0)

    async def _pause(self, msg: Any, request: Request) -> Done:
        answer = self._machine.pause()
        return Done(Code.DONE if answer.success else Code.REFUSED, answer.message)

    async def _continue(self, msg: Any, request: Request) -> Done:
        """Continue the paused activity: AUTONOMOUS first, from STOPPED or TELEOPERATION."""
        machine, mode = self._machine, self.mode
        if machine.paused is None:
            return Done(Code.REFUSED, machine.resume().message)
        if mode is not None and mode[1]:
            return Done(Code.REFUSED, 'Emergency Stop: release it, then continue')
        undo: List[Callable[[], Awaitable[Done]]] = []
        selected = await self._autonomy_for(StartPlan(select_autonomy=mode is None or mode[0]
                                                      is not Mode.AUTONOMOUS), undo, msg.by)
        if isinstance(selected, Done):
            return selected
        if selected:
            # The mux left teleoperation (or STOPPED): the machine hears it at once, so that
            # the continued state does not take the old mode's interrupt.
            machine.on_operation_mode(int(Mode.AUTONOMOUS), False)
        answer = machine.resume()
        if not answer.success:
            await self._undo(undo)
            return Done(Code.REFUSED, answer.message)
        return Done(Code.DONE, f'{answer.message} (AUTONOMOUS selected)' if selected
                    else answer.message)

    def _goal_refused(self, code: Code, message: str) -> Done:
        """Refuse a simple goal: tell operators (a topic's sender has no other answer)."""
        self._node.get_logger().warning(message)
        self._report(message)
        self._machine.refuse(Activity.SIMPLE_GOAL, message)
        return Done(code, message)

    # -- raw ROS: the RSM-compatible services and the simple goal topic -------------------------

    async def raw(self, kind: Kind) -> Done:
        """Carry out a command without arguments of a raw ROS caller (a Trigger service)."""
        msg = Command.Request(command=int(kind))
        msg.by.surface = 'ros'
        return await self.execute(msg)

    async def raw_start_stop(self, following: bool, start: bool) -> Done:
        """Carry out ``start_stop_waypoint_following`` / ``start_stop_exploration``."""
        kinds = {(True, True): Kind.START_WAYPOINT_FOLLOWING,
                 (True, False): Kind.STOP_WAYPOINT_FOLLOWING,
                 (False, True): Kind.START_EXPLORATION, (False, False): Kind.STOP_EXPLORATION}
        msg = Command.Request(command=int(kinds[following, start]))
        msg.by.surface = 'ros'
        return await self.execute(msg)

    def raw_simple_goal(self, frame: str, pose: PoseMsg) -> None:
        """Carry out a simple goal from ``robot_sm/simple_goal`` (RViz's "2D Goal Pose")."""
        msg = Command.Request(command=int(Kind.GO_TO))
        msg.by.surface = 'ros'
        msg.pose.header.frame_id = frame
        msg.pose.pose = pose
        executor = self._node.executor
        if executor is not None:
            executor.create_task(self.execute, msg)


__all__ = ['CommandGateway', 'Done']
