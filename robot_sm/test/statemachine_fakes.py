"""
A state machine with plain-Python surroundings: the engine tests' stand-in for ROS.

:class:`FakeSuite` answers the services states call with the service provider's real core
(:class:`robot_sm.waypoints.data_store.DataStore`), at once; :class:`FakeContext` gives states a
manual clock, recorded publishers, settable subscriptions and parameters. Plugins come from the
installed entry points, the test package's included (see ``conftest.py``).
"""

from types import SimpleNamespace
from typing import Any, Callable, Dict, List, Mapping, Optional, Set, Tuple, Type

from robot_sm.statemachine.base_state import BaseState
from robot_sm.statemachine.calls import PendingCall
from robot_sm.statemachine.constants import Role, ROLE_PARAMETERS
from robot_sm.statemachine.machine import StateMachine
from robot_sm.statemachine.registry import PluginRegistry, StateCreator
from robot_sm.statemachine.states import Idle
from robot_sm.waypoints.data_store import DataStore
from robot_sm.waypoints.errors import RequestError
from robot_sm.waypoints.pose import Pose as CorePose
from robot_sm.waypoints.settings import StoreSettings
from robot_sm.waypoints.waypoint_list import WaypointList

NODE_DEFAULTS = {'boot_up_service': '', 'map_frame': 'map'}


def pose(x: float, y: float = 0.0) -> SimpleNamespace:
    """Return a message-like pose at (x, y) facing +x."""
    return SimpleNamespace(position=SimpleNamespace(x=x, y=y, z=0.0),
                           orientation=SimpleNamespace(x=0.0, y=0.0, z=0.0, w=1.0))


def _core(msg: Any) -> CorePose:
    p, q = msg.position, msg.orientation
    return CorePose(p.x, p.y, p.z, q.x, q.y, q.z, q.w)


class Log:
    """A logger that keeps what it was told."""

    def __init__(self) -> None:
        self.lines: List[Tuple[str, str]] = []

    def _add(self, level: str, message: str) -> None:
        self.lines.append((level, message))

    def debug(self, message: str) -> None:
        self._add('debug', message)

    def info(self, message: str) -> None:
        self._add('info', message)

    def warning(self, message: str) -> None:
        self._add('warning', message)

    def error(self, message: str) -> None:
        self._add('error', message)

    def errors(self) -> List[str]:
        return [message for level, message in self.lines if level == 'error']


class FakeSuite:
    """The service provider and mux as the states see them: services answered at once."""

    def __init__(self, routines: Tuple[str, ...] = ('Scripted',)) -> None:
        self.store = DataStore(WaypointList(), StoreSettings(waypoint_routines=routines))
        self.calls: List[Tuple[str, Dict[str, Any]]] = []
        self.ready: Optional[Set[str]] = None  # None: every service is available
        self.answers: Dict[str, Callable[[Dict[str, Any]], Any]] = {}

    def add_waypoints(self, *xs: float, routine: str = '') -> None:
        for x in xs:
            self.store.add_waypoint(_core(pose(x)), routine, -1)

    def available(self, service: str) -> bool:
        return self.ready is None or service in self.ready

    def goals(self) -> List[Tuple[int, float, int]]:
        """Return ``(mode, x, waypoint_position)`` of every stored navigation goal."""
        return [(r['navigation_mode'], r['goal'].position.x, r['waypoint_position'])
                for name, r in self.calls if name == 'robot_sm/set_navigation_goal']

    def answer(self, service: str, request: Dict[str, Any]) -> Any:
        self.calls.append((service, request))
        if service in self.answers:
            return self.answers[service](request)
        store = self.store
        short = service.split('/')[-1]
        try:
            if short == 'get_waypoints':
                waypoints = store.waypoints
                return SimpleNamespace(waypoint_array=SimpleNamespace(
                    mode=int(waypoints.mode), reverse=waypoints.reverse, waypoints=[
                        SimpleNamespace(pose=pose(w.pose.x, w.pose.y), visited=w.visited,
                                        unreachable=w.unreachable, routine=w.routine, id=w.id)
                        for w in waypoints.waypoints]))
            message = {
                'reset_waypoints': lambda: store.reset_waypoints(),
                'set_waypoint_following_mode': lambda: store.set_following_mode(
                    request['mode'], request['reverse']),
                'waypoint_visited': lambda: store.mark_visited(request['position']),
                'set_navigation_goal': lambda: store.set_navigation_goal(
                    _core(request['goal']), request['navigation_mode'],
                    request['waypoint_position'], request['routine']),
                'navigation_goal_completed': lambda: store.complete_navigation_goal(
                    request['status']['goal_status'], request['navigation_status']),
                'set_operation_mode': lambda: 'mode set',
            }[short]()
        except RequestError as error:
            return SimpleNamespace(success=False, message=str(error))
        return SimpleNamespace(success=True, message=message)


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
    """A :class:`~robot_sm.statemachine.port.Context` over :class:`FakeSuite`."""

    map_frame = 'map'

    def __init__(self, world: 'World', plugin: str) -> None:
        self._world = world
        self._plugin = plugin

    @property
    def logger(self) -> Log:
        return self._world.log

    def now(self) -> float:
        return self._world.time

    def parameter(self, name: str) -> Any:
        world = self._world
        scoped = f'{self._plugin}.{name}'
        if scoped in world.parameters:
            return world.parameters[scoped]
        if self._plugin:
            for spec in world.registry.load(self._plugin).PARAMETERS:
                if spec.name == name:
                    return spec.default
        if name in world.parameters:
            return world.parameters[name]
        return NODE_DEFAULTS[name]

    def call(self, service: str, srv_type: str, request: Optional[Mapping[str, Any]] = None,
             timeout: float = 5.0) -> PendingCall:
        pending = PendingCall(service, self.now, timeout)
        if self._world.suite.available(service):
            pending.complete(self._world.suite.answer(service, dict(request or {})))
        else:
            pending.fail_with('service not available')
        return pending

    def service_ready(self, service: str, srv_type: str) -> bool:
        return self._world.suite.available(service)

    def publisher(self, topic: str, msg_type: str, qos: str = 'default') -> Recorded:
        return self._world.published.setdefault(topic, Recorded())

    def subscribe(self, topic: str, msg_type: str, qos: str = 'default') -> Latest:
        return self._world.topics.setdefault(topic, Latest())

    def message(self, msg_type: str, **fields: Any) -> SimpleNamespace:
        return SimpleNamespace(**fields)


class World:
    """A machine, its suite, clock, log, topics and parameters."""

    def __init__(self, parameters: Optional[Dict[str, Any]] = None,
                 extra: Optional[Mapping[str, Type[BaseState]]] = None,
                 suite: Optional[FakeSuite] = None) -> None:
        self.time = 0.0
        self.log = Log()
        self.suite = suite or FakeSuite()
        self.parameters: Dict[str, Any] = {'navigation_plugin': 'ScriptedNavigation'}
        self.parameters.update(parameters or {})
        self.published: Dict[str, Recorded] = {}
        self.topics: Dict[str, Latest] = {}
        self.states: List[str] = []
        self.outcomes: List[str] = []
        self.stops: List[str] = []
        self.registry = PluginRegistry(extra)
        plugins = {role: self.parameters.get(name, default)
                   for role, (name, default) in ROLE_PARAMETERS.items()}
        self.creator = StateCreator(self.registry, plugins, lambda p: FakeContext(self, p),
                                    self.log, Idle, on_error=self.outcomes.append)
        self.machine = StateMachine(self.creator, self.log, publish_state=self.states.append,
                                    publish_outcome=self.outcomes.append,
                                    stop_robot=self.stops.append)

    def tick(self, count: int = 1, dt: float = 0.05) -> None:
        for _ in range(count):
            self.time += dt
            self.machine.tick()

    def boot(self) -> None:
        """Start and run until Boot is over."""
        self.machine.start()
        self.tick()
        assert self.states[:1] == ['Boot'] and self.state != 'Boot', self.states

    def enter(self, role: Role, **kwargs: Any) -> BaseState:
        """Put the machine into a new state of ``role`` (requested, then one tick)."""
        state = self.creator.create(role, **kwargs)
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
