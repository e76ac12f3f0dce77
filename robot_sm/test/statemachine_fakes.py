"""
A state machine with plain-Python surroundings: the engine tests' stand-in for ROS.

:class:`FakeSuite` is the suite's typed port over the service provider's real core
(:class:`robot_sm.waypoints.data_store.DataStore`), answering at once; :class:`FakeContext`
gives states a manual clock, recorded publishers, settable subscriptions and parameters. Plugins
come from the installed entry points, the test package's included (see ``conftest.py``).
"""

from types import SimpleNamespace
from typing import Any, Callable, Dict, List, Mapping, Optional, Set, Tuple, Type

from robot_sm.contract import Answer
from robot_sm.parameters import validate_all
from robot_sm.statemachine.base_state import BaseState
from robot_sm.statemachine.behaviours import CalculateGoalState, MappingState
from robot_sm.statemachine.calls import PendingCall, T
from robot_sm.statemachine.cycle import Handover, Role, ROLES
from robot_sm.statemachine.machine import StateMachine
from robot_sm.statemachine.registry import PluginRegistry, StateCreator
from robot_sm.statemachine.resumable import Resumable
from robot_sm.statemachine.states import Idle
from robot_sm.statemachine.suite_port import RoundFinished
from robot_sm.waypoints.data_store import DataStore
from robot_sm.waypoints.errors import StoreError
from robot_sm.waypoints.navigation_goal import GoalStatus, NavigationGoal, NavigationMode
from robot_sm.waypoints.pose import Pose
from robot_sm.waypoints.settings import StoreSettings
from robot_sm.waypoints.waypoint_list import WaypointList

NODE_DEFAULTS = {'boot_up_service': '', 'map_frame': 'map'}
#: Operation modes of the mux.
STOPPED, AUTONOMOUS, TELEOP = 0, 1, 2
#: The suite's services Boot waits for.
SUITE_SERVICES = ('robot_sm/get_waypoints', 'robot_sm/set_operation_mode')


def pose(x: float, y: float = 0.0) -> Pose:
    """Return a pose at (x, y) facing +x."""
    return Pose(x, y)


class Log:
    """A logger that keeps what it was told."""

    def __init__(self) -> None:
        self.lines: List[Tuple[str, str]] = []

    def debug(self, message: str) -> None:
        self.lines.append(('debug', message))

    def info(self, message: str) -> None:
        self.lines.append(('info', message))

    def warning(self, message: str) -> None:
        self.lines.append(('warning', message))

    def error(self, message: str) -> None:
        self.lines.append(('error', message))

    def errors(self) -> List[str]:
        return [message for level, message in self.lines if level == 'error']


class FakeSuite:
    """The service provider and mux as the states see them: answered at once, in order."""

    def __init__(self, clock: Callable[[], float],
                 routines: Tuple[str, ...] = ('Scripted',)) -> None:
        self.store = DataStore(WaypointList(), StoreSettings(waypoint_routines=routines))
        self.clock = clock
        #: The calls in the order they were made: (service, arguments).
        self.calls: List[Tuple[str, Tuple[Any, ...]]] = []
        self.ready: Optional[Set[str]] = None  # None: every service is available
        #: False: calls are never answered (they fail at their deadline).
        self.answering = True
        self.stops: List[str] = []

    def add_waypoints(self, *xs: float, routine: str = '') -> None:
        for x in xs:
            self.store.add_waypoint(pose(x), routine, -1)

    def goals(self) -> List[Tuple[int, float, int]]:
        """Return ``(mode, x, waypoint_position)`` of every stored navigation goal."""
        goals = [arguments[0] for name, arguments in self.calls if name == 'set_navigation_goal']
        return [(int(goal.mode), goal.pose.x, goal.waypoint_position) for goal in goals]

    def _answer(self, service: str, answer: Callable[[], T], *arguments: Any) -> PendingCall[T]:
        self.calls.append((service, arguments))
        call: PendingCall[T] = PendingCall(f'robot_sm/{service}', self.clock, 5.0)
        if not self.answering:
            return call
        if self.ready is not None and f'robot_sm/{service}' not in self.ready:
            call.fail_with('service not available')
        else:
            call.complete(answer())
        return call

    def _change(self, service: str, change: Callable[[], str],
                *arguments: Any) -> PendingCall[Answer]:
        def answer() -> Answer:
            try:
                return Answer(True, change())
            except StoreError as error:
                return Answer(False, str(error))
        return self._answer(service, answer, *arguments)

    def missing_services(self) -> List[str]:
        return [name for name in SUITE_SERVICES if self.ready is not None
                and name not in self.ready]

    def store_goal(self, goal: NavigationGoal) -> PendingCall[Answer]:
        return self._change('set_navigation_goal', lambda: self.store.set_navigation_goal(
            goal.pose, int(goal.mode), goal.waypoint_position, goal.routine), goal)

    def report_goal(self, goal: NavigationGoal, status: GoalStatus,
                    navigation_status: bool) -> PendingCall[Answer]:
        return self._change('navigation_goal_completed',
                            lambda: self.store.complete_navigation_goal(status,
                                                                        navigation_status),
                            goal, status, navigation_status)

    def waypoints(self) -> PendingCall[WaypointList]:
        return self._answer('get_waypoints', lambda: self.store.waypoints)

    def finish_round(self) -> PendingCall[RoundFinished]:
        def finish() -> RoundFinished:
            continues, message = self.store.finish_round()
            return RoundFinished(True, message, continues, self.store.waypoints)
        return self._answer('finish_round', finish)

    def failed_goals(self) -> PendingCall[Tuple[Pose, ...]]:
        return self._answer('get_failed_goals', lambda: self.store.failed_goals)

    def reverse_mode(self) -> PendingCall[bool]:
        return self._answer('get_reverse_mode', lambda: self.store.reverse_mode)

    def set_reverse_mode(self, reverse: bool) -> PendingCall[Answer]:
        return self._change('set_reverse_mode', lambda: self.store.set_reverse_mode(reverse),
                            reverse)

    def stop_robot(self, reason: str) -> None:
        self.stops.append(reason)


class Recorded:
    """A publisher that keeps what was published."""

    def __init__(self) -> None:
        self.messages: List[Any] = []

    def publish(self, message: Any) -> None:
        self.messages.append(message)


class Latest:
    """A subscription whose latest message a test sets."""

    def __init__(self) -> None:
        self.latest: Any = None
        self.received_at: Optional[float] = None


class FakeContext:
    """A :class:`~robot_sm.statemachine.context.Context` over :class:`FakeSuite`."""

    map_frame = 'map'

    def __init__(self, world: 'World', plugin: str) -> None:
        self._world = world
        self._plugin = plugin

    @property
    def logger(self) -> Log:
        return self._world.log

    @property
    def suite(self) -> FakeSuite:
        return self._world.suite

    def now(self) -> float:
        return self._world.time

    def ros_time(self) -> float:
        return self._world.time

    def parameter(self, name: str) -> Any:
        plugin, _, short = name.rpartition('.')
        values = self._world.plugin_parameters(plugin or self._plugin)
        if short in values:
            return values[short]
        return self._world.node_parameter(name)

    def call(self, service: str, srv_type: str, request: Optional[Mapping[str, Any]] = None,
             timeout: Optional[float] = None) -> PendingCall[Any]:
        """Answer with ``world.services[service](request)``; fail if there is none."""
        pending: PendingCall[Any] = PendingCall(service, self.now, timeout or 5.0)
        self._world.service_calls.append(service)
        answer = self._world.services.get(service)
        if answer is None:
            pending.fail_with('service not available')
        else:
            pending.complete(answer(dict(request or {})))
        return pending

    def action_ready(self, action: str, action_type: str) -> bool:
        return False

    def publisher(self, topic: str, msg_type: str, qos: str = 'default') -> Recorded:
        return self._world.published.setdefault(topic, Recorded())

    def subscribe(self, topic: str, msg_type: str, qos: str = 'default') -> Latest:
        return self._world.topics.setdefault(topic, Latest())


class World:
    """A machine, its suite, clock, log, topics and parameters; the cycle checked as at start."""

    def __init__(self, parameters: Optional[Dict[str, Any]] = None,
                 extra: Optional[Mapping[str, Type[BaseState]]] = None,
                 suite: Optional[FakeSuite] = None) -> None:
        self.time = 0.0
        self.log = Log()
        self.suite = suite or FakeSuite(lambda: self.time)
        self.parameters: Dict[str, Any] = {'navigation_plugin': 'ScriptedNavigation'}
        self.parameters.update(parameters or {})
        self.services: Dict[str, Callable[[Dict[str, Any]], Any]] = {}
        self.service_calls: List[str] = []
        self.published: Dict[str, Recorded] = {}
        self.topics: Dict[str, Latest] = {}
        self.states: List[str] = []
        self.outcomes: List[str] = []
        self.registry = PluginRegistry(extra)
        plugins = {part.parameter: self.parameters.get(part.parameter, part.default)
                   for part in ROLES.values() if part.parameter}
        self.creator = StateCreator(self.registry, plugins, lambda p: FakeContext(self, p),
                                    self.log, Idle, on_error=self.outcomes.append)
        self.creator.check_cycle()
        #: What the machine handed over to keep across a restart (None: nothing runs).
        self.kept: List[Optional[Resumable]] = []
        self.machine = StateMachine(self.creator, self.log, publish_state=self.states.append,
                                    publish_outcome=self.outcomes.append,
                                    stop_robot=self.suite.stop_robot,
                                    keep_resumable=self.kept.append)

    @property
    def stops(self) -> List[str]:
        return self.suite.stops

    def plugin_parameters(self, plugin: str) -> Dict[str, Any]:
        """Return the validated parameters of ``plugin`` (defaults where not given)."""
        if not plugin:
            return {}
        specs = self.registry.load(plugin).PARAMETERS
        given = {spec.name: self.parameters[f'{plugin}.{spec.name}'] for spec in specs
                 if f'{plugin}.{spec.name}' in self.parameters}
        return validate_all(specs, given)

    def node_parameter(self, name: str) -> Any:
        """Return the state interface's parameter ``name``."""
        defaults = {part.parameter: part.default for part in ROLES.values() if part.parameter}
        return {**NODE_DEFAULTS, **defaults, **self.parameters}[name]

    def tick(self, count: int = 1, dt: float = 0.05) -> None:
        for _ in range(count):
            self.time += dt
            self.machine.tick()

    def boot(self) -> None:
        """Start and run until Boot is over."""
        self.machine.start()
        self.tick()
        assert self.states[:1] == ['Boot'] and self.state != 'Boot', self.states

    def enter(self, role: Role, goal: Optional[NavigationGoal] = None) -> BaseState:
        """Put the machine into a new state of ``role`` (requested, then one tick)."""
        state = self.creator.create(role, Handover(goal))
        assert self.machine.transition_to(state)
        self.tick()
        assert self.machine.state is state, (self.states, self.log.errors())
        return state

    @property
    def state(self) -> str:
        return self.machine.state_name

    @property
    def pending(self) -> Optional[str]:
        return self.machine.pending.name if self.machine.pending is not None else None

    def run_until(self, name: str, limit: int = 200) -> None:
        for _ in range(limit):
            if self.state == name:
                return
            self.tick()
        raise AssertionError(f'{name!r} not reached; states: {self.states[-12:]}')


def reply(success: bool, message: str = '') -> SimpleNamespace:
    """Return a service response with ``success`` and ``message``."""
    return SimpleNamespace(success=success, message=message)


class QuietGoal(CalculateGoalState):
    """A calculate-goal plugin that never finishes by itself."""


class QuietMapping(MappingState):
    """A mapping plugin that never finishes by itself."""


def world(extra: Optional[Mapping[str, Type[BaseState]]] = None, **parameters: Any) -> World:
    """Return a booted world whose exploration and navigation never finish by themselves."""
    result = World({'calculate_goal_plugin': 'QuietGoal', 'mapping_plugin': 'QuietMapping',
                    'ScriptedNavigation.drive_ticks': 10_000, **parameters},
                   extra={'QuietGoal': QuietGoal, 'QuietMapping': QuietMapping, **(extra or {})})
    result.boot()
    return result


def nav_goal(mode: NavigationMode, x: float = 1.0, routine: str = '') -> NavigationGoal:
    """Return a goal at ``x`` for ``mode`` (a waypoint goal names waypoint 0)."""
    waypoint = 0 if mode == NavigationMode.WAYPOINT_FOLLOWING else -1
    return NavigationGoal(pose(x), mode, waypoint, routine=routine)
