"""
The state machine engine without ROS: RSM's tables, awake() order, and the bugs we fixed.

Each test builds a :class:`~statemachine_fakes.World`: the real engine, the real cycle, the real
built-in states and plugins from entry points, with the service provider's real core answering
the suite's services.
"""

from typing import List, Tuple

import pytest
from robot_sm.statemachine.base_state import BaseState
from robot_sm.statemachine.cycle import Interrupt, Role
from robot_sm.statemachine.registry import installed_plugins
from robot_sm.waypoints.navigation_goal import GoalStatus, NavigationMode
from statemachine_fakes import AUTONOMOUS, nav_goal, pose, reply, STOPPED, TELEOP, World
from statemachine_fakes import world as quiet_world

T = Interrupt.TELEOPERATION


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


def world(**parameters: object) -> World:
    return quiet_world(extra={'Recording': Recording}, **parameters)


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


def test_simple_goal_stop_only_stops_simple_goals() -> None:
    w = world()
    state = w.enter(Role.WAYPOINT_NAVIGATION, nav_goal(NavigationMode.WAYPOINT_FOLLOWING))
    assert w.machine.stop_simple_goal() == (False, 'No simple goal running (W: Navigation)')
    assert state.status == GoalStatus.ACTIVE  # RSM aborted the goal anyway
    w.enter(Role.SIMPLE_GOAL_NAVIGATION, nav_goal(NavigationMode.SIMPLE_GOAL))
    assert w.machine.stop_simple_goal() == (True, 'Simple goal stopped')
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
    w = World({'boot_state': 'Recording'}, extra={'Recording': Recording})
    w.machine.start()
    assert w.states == ['Recording']


@pytest.mark.parametrize('activity', ['exploration', 'waypoint following'])
def test_a_stop_before_the_next_tick_stops_what_was_just_started(activity: str) -> None:
    w = world()
    w.suite.add_waypoints(1.0)
    command = (w.machine.start_stop_exploration if activity == 'exploration'
               else w.machine.start_stop_waypoint_following)
    assert command(True).success
    stopped = command(False)  # before a tick entered the started state
    assert stopped.success, stopped
    assert stopped.message == f'{activity.capitalize()} stopped'
    assert command(True).success  # started again at once: it runs from the next tick
    assert command(True).message == f'{activity.capitalize()} running'
    w.tick()
    assert w.state.startswith('E: ' if activity == 'exploration' else 'W: ')
