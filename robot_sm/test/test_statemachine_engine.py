"""
The state machine engine without ROS: RSM's tables, awake() order, and the bugs we fixed.

Each test builds a :class:`~statemachine_fakes.World`: the real engine, the real cycle, the real
built-in states and plugins from entry points, with the service provider's real core answering
the suite's services.
"""

from typing import Callable, Dict, List, Optional, Tuple

import pytest
from robot_sm.mux.control_mux import Answer
from robot_sm.statemachine.base_state import BaseState
from robot_sm.statemachine.behaviours import CalculateGoalState, MappingState
from robot_sm.statemachine.cycle import Handover, Interrupt, Role
from robot_sm.statemachine.machine import StateMachine
from robot_sm.statemachine.registry import installed_plugins
from robot_sm.waypoints.navigation_goal import GoalStatus, NavigationGoal, NavigationMode
from statemachine_fakes import pose, reply, World

E, T, END, SG, SGS = (Interrupt.EMERGENCY_STOP, Interrupt.TELEOPERATION,
                      Interrupt.INTERRUPT_END, Interrupt.SIMPLE_GOAL, Interrupt.SIMPLE_GOAL_STOP)
STOPPED, AUTONOMOUS, TELEOP = 0, 1, 2


class QuietGoal(CalculateGoalState):
    """A calculate-goal plugin that never finishes by itself."""


class QuietMapping(MappingState):
    """A mapping plugin that never finishes by itself."""


class Recording(BaseState):
    """A state that logs its hooks into the class-wide list ``log``."""

    log: List[Tuple[str, str]] = []
    created = 0

    def _note(self, hook: str) -> None:
        self.log.append((self.label, hook))

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.label = f'R{Recording.created}'
        Recording.created += 1

    def on_setup(self) -> None:
        self._note('setup')

    def on_entry(self) -> None:
        self._note('entry')

    def on_active(self) -> None:
        self._note('active')

    def on_exit(self) -> None:
        self._note('exit')


EXTRA = {'QuietGoal': QuietGoal, 'QuietMapping': QuietMapping, 'Recording': Recording}


def world(**parameters: object) -> World:
    result = World({'calculate_goal_plugin': 'QuietGoal', 'mapping_plugin': 'QuietMapping',
                    'ScriptedNavigation.drive_ticks': 10_000, **parameters}, extra=EXTRA)
    result.boot()
    return result


def nav_goal(mode: NavigationMode, x: float = 1.0, routine: str = '') -> NavigationGoal:
    waypoint = 0 if mode == NavigationMode.WAYPOINT_FOLLOWING else -1
    return NavigationGoal(pose(x), mode, waypoint, routine=routine)


#: The goal each role is entered with.
GOALS: Dict[Role, NavigationGoal] = {
    Role.EXPLORATION_NAVIGATION: nav_goal(NavigationMode.EXPLORATION),
    Role.WAYPOINT_NAVIGATION: nav_goal(NavigationMode.WAYPOINT_FOLLOWING),
    Role.SIMPLE_GOAL_NAVIGATION: nav_goal(NavigationMode.SIMPLE_GOAL),
    Role.ROUTINE: nav_goal(NavigationMode.WAYPOINT_FOLLOWING, routine='Scripted'),
}


def enter(w: World, role: Role) -> None:
    """Bring the machine into a state of ``role`` as the suite would."""
    if role is Role.TELEOPERATION:
        w.machine.on_operation_mode(TELEOP, False)
    elif role is Role.EMERGENCY_STOP:
        w.machine.on_operation_mode(STOPPED, True)
    elif role is Role.BOOT_EMERGENCY_STOP:
        w.enter(Role.BOOT)
        w.machine.on_operation_mode(STOPPED, True)
    else:
        w.enter(role, GOALS.get(role))
        return
    w.tick()
    assert w.machine.state is not None and w.machine.state.role is role


#: rsm-original.md §2.4, interrupt columns, by role: the state requested (None: ignored).
INTERRUPT_TABLE = {
    Role.BOOT: {E: 'Emergency Stop', T: None, END: None, SG: None, SGS: None},
    Role.BOOT_EMERGENCY_STOP: {E: None, T: None, END: 'Boot', SG: None, SGS: None},
    Role.IDLE: {E: 'Emergency Stop', T: 'Teleoperation', END: None, SG: 'G: Navigation',
                SGS: None},
    Role.TELEOPERATION: {E: 'Emergency Stop', T: None, END: 'Idle', SG: None, SGS: None},
    Role.EMERGENCY_STOP: {E: None, T: None, END: 'Idle', SG: None, SGS: None},
    Role.WAYPOINT_FOLLOWING: {E: 'Emergency Stop', T: 'Teleoperation', END: None,
                              SG: 'G: Navigation', SGS: None},
    Role.CALCULATE_GOAL: {E: 'Emergency Stop', T: 'Teleoperation', END: None,
                          SG: 'G: Navigation', SGS: None},
    Role.EXPLORATION_NAVIGATION: {E: 'Emergency Stop', T: 'Teleoperation', END: None,
                                  SG: 'G: Navigation', SGS: None},
    Role.WAYPOINT_NAVIGATION: {E: 'Emergency Stop', T: 'Teleoperation', END: None,
                               SG: 'G: Navigation', SGS: None},
    Role.SIMPLE_GOAL_NAVIGATION: {E: 'Emergency Stop', T: 'Teleoperation', END: None,
                                  SG: 'G: Navigation', SGS: 'Idle'},
    Role.MAPPING: {E: 'Emergency Stop', T: 'Teleoperation', END: None, SG: 'G: Navigation',
                   SGS: None},
    Role.ROUTINE: {E: 'Emergency Stop', T: 'Teleoperation', END: None, SG: 'G: Navigation',
                   SGS: None},
}
#: The name of each role's state with the test plugins.
NAMES = {Role.BOOT: 'Boot', Role.BOOT_EMERGENCY_STOP: 'Emergency Stop', Role.IDLE: 'Idle',
         Role.TELEOPERATION: 'Teleoperation', Role.EMERGENCY_STOP: 'Emergency Stop',
         Role.WAYPOINT_FOLLOWING: 'W: Waypoint Following',
         Role.CALCULATE_GOAL: 'E: Calculate Goal', Role.EXPLORATION_NAVIGATION: 'E: Navigation',
         Role.WAYPOINT_NAVIGATION: 'W: Navigation', Role.SIMPLE_GOAL_NAVIGATION: 'G: Navigation',
         Role.MAPPING: 'E: Mapping', Role.ROUTINE: 'W: Scripted'}


@pytest.mark.parametrize('role,interrupt', [
    (role, interrupt) for role in INTERRUPT_TABLE for interrupt in Interrupt])
def test_interrupt_table(role: Role, interrupt: Interrupt) -> None:
    w = world()
    w.suite.ready, w.suite.answering = set(), False  # no state moves on by itself
    enter(w, role)
    assert w.state == NAMES[role] and w.pending is None
    expected = INTERRUPT_TABLE[role][interrupt]
    handover = Handover(nav_goal(NavigationMode.SIMPLE_GOAL, x=7.0))
    requested = w.machine.interrupt(interrupt, handover)
    assert (w.pending, requested) == (expected, expected is not None)
    w.tick()
    assert w.state == (expected or NAMES[role])
    if expected is not None:
        # The interrupted state's own logic can no longer request a transition.
        assert w.states[-1] == expected


F, OK = False, True
RUNNING_W, RUNNING_E = 'Waypoint following running', 'Exploration running'
NOT_E, NOT_W = 'Exploration not running', 'Waypoint following not running'
#: rsm-original.md §2.4, command columns: (success, message, state requested).
COMMAND_TABLE = {
    Role.BOOT: [(F, 'Still booting', None)] * 4,
    Role.IDLE: [(OK, 'Exploration started', 'E: Mapping'), (F, NOT_E, None),
                (OK, 'Waypoint following started', 'W: Waypoint Following'), (F, NOT_W, None)],
    Role.TELEOPERATION: [(F, 'Teleoperation active', None), (F, NOT_E, None),
                         (F, 'Teleoperation active', None), (F, NOT_W, None)],
    Role.EMERGENCY_STOP: [(F, 'Emergency Stop', None), (F, NOT_E, None),
                          (F, 'Emergency Stop', None), (F, NOT_W, None)],
    Role.BOOT_EMERGENCY_STOP: [(F, 'Emergency Stop', None), (F, NOT_E, None),
                               (F, 'Emergency Stop', None), (F, NOT_W, None)],
    Role.WAYPOINT_FOLLOWING: [(F, RUNNING_W, None)] * 3 + [
        (OK, 'Waypoint following stopped', 'Idle')],
    Role.CALCULATE_GOAL: [(OK, RUNNING_E, None), (OK, 'Exploration stopped', 'Idle'),
                          (F, RUNNING_E, None), (F, RUNNING_E, None)],
    Role.EXPLORATION_NAVIGATION: [(F, RUNNING_E, None), (OK, 'Exploration stopped', 'Idle'),
                                  (F, RUNNING_E, None), (F, RUNNING_E, None)],
    Role.WAYPOINT_NAVIGATION: [(F, RUNNING_W, None)] * 3 + [
        (OK, 'Waypoint following stopped', 'Idle')],
    Role.SIMPLE_GOAL_NAVIGATION: [(F, 'Simple Goal running', None)] * 4,
    Role.MAPPING: [(F, RUNNING_E, None), (OK, 'Exploration stopped', 'Idle'),
                   (F, RUNNING_E, None), (F, RUNNING_E, None)],
    Role.ROUTINE: [(F, RUNNING_W, None)] * 3 + [(OK, 'Waypoint following stopped', 'Idle')],
}
COMMANDS = [('exploration', True), ('exploration', False), ('waypoint following', True),
            ('waypoint following', False)]


@pytest.mark.parametrize('role,column', [
    (role, column) for role in COMMAND_TABLE for column in range(4)])
def test_command_table(role: Role, column: int) -> None:
    w = world()
    w.suite.ready, w.suite.answering = set(), False
    enter(w, role)
    activity, start = COMMANDS[column]
    command = (w.machine.start_stop_exploration if activity == 'exploration'
               else w.machine.start_stop_waypoint_following)
    success, message, requested = COMMAND_TABLE[role][column]
    assert command(start) == (success, message)
    assert w.pending == requested


def test_commands_without_a_state_are_refused() -> None:
    w = World()
    assert w.machine.start_stop_exploration(True) == (False, 'No active state')
    assert w.machine.start_stop_waypoint_following(False) == (False, 'No active state')


def test_tick_order_is_rsm_awake_order_and_the_last_request_wins() -> None:
    Recording.log, Recording.created = [], 0
    w = world(idle_state='Recording', teleoperation_state='Recording')
    # Boot's first tick asked for Idle (a Recording): set up at the request, entered in the
    # same tick after Boot's exit, active from the next tick on.
    assert Recording.log == [('R0', 'setup'), ('R0', 'entry'), ('R0', 'active')]
    w.tick()
    assert Recording.log[-1] == ('R0', 'active')
    Recording.log.clear()
    w.machine.on_operation_mode(TELEOP, False)
    assert w.machine.interrupt(T)
    # on_setup runs at request time, for both requests.
    assert Recording.log == [('R1', 'setup'), ('R2', 'setup')]
    published = len(w.states)
    w.tick()
    # Old on_active once more, old on_exit, new on_entry; the dropped request never entered.
    assert Recording.log[2:] == [('R0', 'active'), ('R0', 'exit'), ('R2', 'entry')]
    assert len(w.states) == published + 1
    w.tick()
    assert Recording.log[-1] == ('R2', 'active')
    # Requesting the current state itself is ignored.
    assert not w.machine.transition_to(w.machine.state)


def test_outcomes_of_a_state_that_is_no_longer_current_are_ignored() -> None:
    w = world()
    old = w.machine.state
    w.enter(Role.MAPPING)
    assert not old.finish('start_waypoint_following')
    assert w.pending is None


def test_boot_is_published_and_waits_for_the_suite_and_the_boot_service() -> None:
    w = World({'boot_up_service': 'robot/boot_done'})
    w.suite.ready = {'robot_sm/get_waypoints'}
    answers = iter([False, True])
    w.services['robot/boot_done'] = lambda request: reply(next(answers), 'drivers')
    w.machine.start()
    assert w.states == ['Boot']
    w.tick(20)
    assert w.state == 'Boot'  # the mux is not there yet
    w.suite.ready = None
    w.tick(2)
    assert w.state == 'Boot'  # the boot service said false; retried after retry_interval
    w.tick(25)
    assert w.state == 'Idle'
    assert w.service_calls == ['robot/boot_done'] * 2  # one call at a time, not one per tick


def test_estop_during_boot_returns_to_boot_on_release() -> None:
    w = World()
    w.suite.ready = set()
    w.machine.start()
    w.machine.on_operation_mode(STOPPED, True)
    w.tick()
    assert w.state == 'Emergency Stop'
    w.machine.on_operation_mode(STOPPED, False)
    w.tick()
    assert w.state == 'Boot'


def test_interrupts_are_delivered_once_per_edge() -> None:
    Recording.log, Recording.created = [], 0
    w = world(idle_state='Recording', emergency_stop_state='Recording')
    Recording.log.clear()
    for _ in range(20):
        w.machine.on_operation_mode(AUTONOMOUS, False)
    for _ in range(20):
        w.machine.on_operation_mode(STOPPED, True)
    assert Recording.log == [('R1', 'setup')]  # one Emergency Stop requested, not twenty
    w.tick()
    for _ in range(20):
        w.machine.on_operation_mode(STOPPED, False)
    w.tick()
    assert [entry for entry in Recording.log if entry[1] in ('setup', 'entry')] == [
        ('R1', 'setup'), ('R1', 'entry'), ('R2', 'setup'), ('R2', 'entry')]


def test_a_condition_that_holds_reaches_each_new_state_once() -> None:
    w = World()
    w.suite.ready = set()
    w.machine.start()
    w.machine.on_operation_mode(TELEOP, False)  # Boot ignores teleoperation
    w.tick()
    assert w.state == 'Boot'
    w.suite.ready = None
    w.tick(3)
    # Boot finished while teleoperation held: Idle hears of it and hands over.
    assert w.states[-2:] == ['Idle', 'Teleoperation']


def test_an_estop_released_before_its_state_is_entered_leads_back_to_idle() -> None:
    w = world()
    w.machine.on_operation_mode(STOPPED, True)
    w.machine.on_operation_mode(STOPPED, False)  # released within the same tick
    w.tick(2)
    assert w.states[-2:] == ['Emergency Stop', 'Idle']


@pytest.mark.parametrize('goal_first', [False, True])
@pytest.mark.parametrize('mode, emergency_stop, winner', [
    (STOPPED, True, 'Emergency Stop'), (TELEOP, False, 'Teleoperation')])
def test_an_estop_or_teleoperation_in_the_same_tick_as_a_simple_goal_wins_in_either_order(
        goal_first: bool, mode: int, emergency_stop: bool, winner: str) -> None:
    w = world()
    published = len(w.states)
    if goal_first:
        w.machine.on_simple_goal(pose(3.0))
    w.machine.on_operation_mode(mode, emergency_stop)
    if not goal_first:
        w.machine.on_simple_goal(pose(3.0))
    assert w.pending == winner
    w.tick(3)
    assert w.states[published:] == [winner]
    assert w.suite.goals() == []  # the simple goal was never stored, let alone driven to


def test_a_simple_goal_is_not_ended_by_a_spurious_interrupt_end() -> None:
    w = world()
    w.machine.on_simple_goal(pose(3.0))
    w.tick()
    assert w.state == 'G: Navigation'
    w.machine.on_operation_mode(AUTONOMOUS, False)
    w.machine.on_operation_mode(STOPPED, False)
    w.tick()
    assert w.state == 'G: Navigation' and w.pending is None


@pytest.mark.parametrize('interrupted', [Role.WAYPOINT_FOLLOWING, Role.CALCULATE_GOAL,
                                         Role.WAYPOINT_NAVIGATION])
def test_a_simple_goal_is_never_overwritten_by_the_interrupted_state(interrupted: Role) -> None:
    w = world()
    w.suite.add_waypoints(1.0, 2.0)
    enter(w, interrupted)
    w.machine.on_simple_goal(pose(9.0))
    w.tick(2)
    assert w.state == 'G: Navigation'
    assert w.suite.goals()[-1] == (NavigationMode.SIMPLE_GOAL, 9.0, -1)
    assert w.machine.state.goal.pose.x == 9.0


def test_simple_goal_stop_only_stops_simple_goals() -> None:
    w = world()
    state = w.enter(Role.WAYPOINT_NAVIGATION, nav_goal(NavigationMode.WAYPOINT_FOLLOWING))
    assert w.machine.stop_simple_goal() == (False, 'No simple goal running (W: Navigation)')
    assert state.status == GoalStatus.ACTIVE  # RSM aborted the goal anyway
    w.enter(Role.SIMPLE_GOAL_NAVIGATION, nav_goal(NavigationMode.SIMPLE_GOAL))
    assert w.machine.stop_simple_goal() == (True, 'Simple goal stopped')
    w.tick()
    assert w.state == 'Idle'


@pytest.mark.parametrize('role, stop, outcome', [
    (Role.SIMPLE_GOAL_NAVIGATION, lambda m: m.stop_simple_goal(),
     'G: Navigation: Simple goal stopped'),
    (Role.WAYPOINT_NAVIGATION, lambda m: m.start_stop_waypoint_following(False),
     'W: Navigation: Waypoint following stopped'),
    (Role.WAYPOINT_FOLLOWING, lambda m: m.start_stop_waypoint_following(False),
     'W: Waypoint Following: Waypoint following stopped'),
    (Role.ROUTINE, lambda m: m.start_stop_waypoint_following(False),
     'W: Scripted: Waypoint following stopped'),
    (Role.EXPLORATION_NAVIGATION, lambda m: m.start_stop_exploration(False),
     'E: Navigation: Exploration stopped'),
    (Role.CALCULATE_GOAL, lambda m: m.start_stop_exploration(False),
     'E: Calculate Goal: Exploration stopped'),
    (Role.MAPPING, lambda m: m.start_stop_exploration(False), 'E: Mapping: Exploration stopped'),
])
def test_an_activity_stopped_by_an_operator_publishes_its_outcome(
        role: Role, stop: Callable[[StateMachine], Answer], outcome: str) -> None:
    w = world()
    enter(w, role)
    assert stop(w.machine)[0]
    assert w.outcomes[-1] == outcome
    w.tick()
    assert w.state == 'Idle'


def test_a_simple_goal_reached_publishes_its_outcome() -> None:
    w = world(**{'ScriptedNavigation.drive_ticks': 2})
    w.machine.on_simple_goal(pose(3.0))
    w.run_until('G: Navigation')
    w.run_until('Idle')
    assert w.outcomes[-1] == 'G: Navigation: simple goal reached'


@pytest.mark.parametrize('hook', ['on_setup', 'on_entry', 'on_active', 'on_exit'])
def test_a_state_that_raises_is_logged_the_robot_stopped_and_the_machine_goes_idle(
        hook: str) -> None:
    w = world(teleoperation_state='FaultyState', **{'FaultyState.fail_in': hook})
    w.machine.on_operation_mode(TELEOP, False)
    w.tick(2)
    if hook == 'on_exit':
        assert w.state == 'Faulty'
        w.machine.on_operation_mode(STOPPED, True)
        w.tick()
        # A failed exit does not keep the machine from the requested state.
        assert w.state == 'Emergency Stop'
    else:
        assert w.state == 'Idle'
    assert len(w.stops) == 1 and f'raised in {hook}' in w.stops[0]
    assert any(f'broken {hook}' in line and 'Traceback' in line for line in w.log.errors())
    # The machine goes on working.
    w.machine.on_operation_mode(STOPPED, True)
    w.tick()
    assert w.state == 'Emergency Stop'


def test_an_outcome_a_state_does_not_declare_stops_the_robot_and_goes_idle() -> None:
    w = world()
    mapping = w.enter(Role.MAPPING)
    mapping.update = lambda: mapping.finish('done')  # type: ignore[method-assign]
    w.tick(2)
    assert w.state == 'Idle'
    assert len(w.stops) == 1 and "outcome 'done', which it does not declare" in w.stops[0]
    assert any('Traceback' in line for line in w.log.errors())


@pytest.mark.parametrize('plugin,reason', [
    ('NoSuchPlugin', "plugin 'NoSuchPlugin' is not installed"),
    ('MissingModule', "plugin 'MissingModule' (robot_sm_test_plugins.does_not_exist:Anything) "
                      'cannot be imported: ModuleNotFoundError'),
    ('NotAState', "plugin 'NotAState' (robot_sm_test_plugins:NOT_A_STATE) is not a BaseState "
                  'subclass'),
])
def test_a_missing_or_broken_plugin_falls_back_to_idle_naming_it(plugin: str,
                                                                 reason: str) -> None:
    w = world(mapping_plugin=plugin)
    assert w.machine.start_stop_exploration(True) == (True, 'Exploration started')
    w.tick()
    assert w.state == 'Idle'
    assert reason in w.outcomes[-1] and 'falls back to Idle' in w.outcomes[-1]


def test_plugins_are_listed_without_importing_them() -> None:
    plugins = installed_plugins()
    assert plugins['MissingModule'] == 'robot_sm_test_plugins.does_not_exist:Anything'
    for name in ('Boot', 'Idle', 'Navigation', 'CalculateGoal', 'WaitRoutine', 'Spin'):
        assert name in plugins


def test_a_robot_package_can_replace_a_built_in_state() -> None:
    w = World({'boot_state': 'Recording'}, extra=EXTRA)
    w.machine.start()
    assert w.states == ['Recording']


# -- waypoint following ----------------------------------------------------------------------


def follow(w: World, mode: int, reverse: bool = False, limit: int = 400,
           until: Optional[int] = None) -> List[int]:
    """Start following and return the waypoint positions driven to, in order."""
    w.suite.store.set_following_mode(mode, reverse)
    assert w.machine.start_stop_waypoint_following(True)[0]
    for _ in range(limit):
        w.tick()
        positions = [p for m, _, p in w.suite.goals() if m == NavigationMode.WAYPOINT_FOLLOWING]
        if w.state == 'Idle' or (until is not None and len(positions) >= until):
            return positions
    raise AssertionError(f'following did not end: {w.states[-10:]}')


def following_world(**parameters: object) -> World:
    return world(**{'ScriptedNavigation.drive_ticks': 2, **parameters})


def test_single_visits_in_order_and_ends_in_idle() -> None:
    w = following_world()
    w.suite.add_waypoints(1.0, 2.0, 3.0)
    assert follow(w, 0) == [0, 1, 2]
    assert all(wp.visited for wp in w.suite.store.waypoints.waypoints)
    assert w.outcomes[-1] == 'W: Waypoint Following: waypoint following finished'


def test_single_in_reverse_starts_from_the_highest_index() -> None:
    w = following_world()
    w.suite.add_waypoints(1.0, 2.0, 3.0)
    assert follow(w, 0, reverse=True) == [2, 1, 0]


def test_roundtrip_resets_and_goes_round_again() -> None:
    w = following_world()
    w.suite.add_waypoints(1.0, 2.0, 3.0)
    assert follow(w, 1, until=7) == [0, 1, 2, 0, 1, 2, 0]


def test_patrol_turns_around_without_visiting_the_endpoint_twice() -> None:
    w = following_world()
    w.suite.add_waypoints(1.0, 2.0, 3.0)
    assert follow(w, 2, until=8) == [0, 1, 2, 1, 0, 1, 2, 1]


def test_patrol_started_in_reverse() -> None:
    w = following_world()
    w.suite.add_waypoints(1.0, 2.0, 3.0)
    assert follow(w, 2, reverse=True, until=5) == [2, 1, 0, 1, 2]


def test_an_unreachable_waypoint_is_marked_and_the_rest_are_visited() -> None:
    w = following_world()
    w.suite.add_waypoints(1.0, -100.0, 3.0)
    assert follow(w, 0) == [0, 1, 2]
    flags = [(wp.visited, wp.unreachable) for wp in w.suite.store.waypoints.waypoints]
    assert flags == [(True, False), (False, True), (True, False)]


def test_following_stops_after_max_unreachable_rounds() -> None:
    w = following_world(**{'WaypointFollowing.max_unreachable_rounds': 3})
    w.suite.add_waypoints(-100.0, -200.0)
    assert follow(w, 1) == [0, 1] * 3
    assert 'every waypoint was unreachable in 3 rounds in a row' in w.outcomes[-1]


def test_a_routine_runs_on_arrival_and_its_outcome_marks_the_waypoint() -> None:
    w = following_world()
    w.suite.add_waypoints(1.0)
    w.suite.add_waypoints(2.0, routine='Scripted')
    w.suite.add_waypoints(3.0)
    assert follow(w, 0) == [0, 1, 2]
    assert 'W: Scripted' in w.states
    assert all(wp.visited for wp in w.suite.store.waypoints.waypoints)


def test_an_interrupted_waypoint_is_left_to_be_visited_again() -> None:
    w = following_world(**{'ScriptedNavigation.drive_ticks': 10})
    w.suite.add_waypoints(1.0, 2.0)
    assert w.machine.start_stop_waypoint_following(True)[0]
    w.run_until('W: Navigation')
    w.machine.on_operation_mode(STOPPED, True)
    w.tick()
    assert w.state == 'Emergency Stop'
    assert not any(wp.visited or wp.unreachable for wp in w.suite.store.waypoints.waypoints)
    w.machine.on_operation_mode(STOPPED, False)
    w.tick(5)
    assert w.state == 'Idle'  # release never resumes the activity


def test_no_waypoints_ends_following_with_a_reason() -> None:
    w = following_world()
    assert follow(w, 0) == []
    assert w.outcomes[-1] == 'W: Waypoint Following: no waypoints to follow'
