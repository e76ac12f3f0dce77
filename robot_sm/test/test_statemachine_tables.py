"""
RSM's interrupt and command tables (rsm-original.md §2.4), walked role by role.

Every role of the cycle is entered as the suite enters it, then each interrupt and each
operator's command is delivered; the state requested and the answer are RSM's (with the bugs
we fixed).
"""

from typing import Callable, Dict

import pytest
from robot_sm.contract import Answer
from robot_sm.statemachine.cycle import Handover, Interrupt, Role
from robot_sm.statemachine.machine import StateMachine
from robot_sm.waypoints.navigation_goal import NavigationGoal, NavigationMode
from statemachine_fakes import nav_goal, pose, STOPPED, TELEOP, World, world

E, T, END, SG, SGS, P = (Interrupt.EMERGENCY_STOP, Interrupt.TELEOPERATION,
                         Interrupt.INTERRUPT_END, Interrupt.SIMPLE_GOAL,
                         Interrupt.SIMPLE_GOAL_STOP, Interrupt.PAUSE)

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
    Role.BOOT: {E: 'Emergency Stop', T: None, END: None, SG: None, SGS: None, P: None},
    Role.BOOT_EMERGENCY_STOP: {E: None, T: None, END: 'Boot', SG: None, SGS: None, P: None},
    Role.IDLE: {E: 'Emergency Stop', T: 'Teleoperation', END: None, SG: 'G: Navigation',
                SGS: None, P: None},
    Role.TELEOPERATION: {E: 'Emergency Stop', T: None, END: 'Idle', SG: None, SGS: None,
                         P: None},
    Role.EMERGENCY_STOP: {E: None, T: None, END: 'Idle', SG: None, SGS: None, P: None},
    Role.WAYPOINT_FOLLOWING: {E: 'Emergency Stop', T: 'Teleoperation', END: None,
                              SG: 'G: Navigation', SGS: None, P: 'Paused'},
    Role.CALCULATE_GOAL: {E: 'Emergency Stop', T: 'Teleoperation', END: None,
                          SG: 'G: Navigation', SGS: None, P: 'Paused'},
    Role.EXPLORATION_NAVIGATION: {E: 'Emergency Stop', T: 'Teleoperation', END: None,
                                  SG: 'G: Navigation', SGS: None, P: 'Paused'},
    Role.WAYPOINT_NAVIGATION: {E: 'Emergency Stop', T: 'Teleoperation', END: None,
                               SG: 'G: Navigation', SGS: None, P: 'Paused'},
    Role.SIMPLE_GOAL_NAVIGATION: {E: 'Emergency Stop', T: 'Teleoperation', END: None,
                                  SG: 'G: Navigation', SGS: 'Idle', P: 'Paused'},
    Role.MAPPING: {E: 'Emergency Stop', T: 'Teleoperation', END: None, SG: 'G: Navigation',
                   SGS: None, P: 'Paused'},
    Role.ROUTINE: {E: 'Emergency Stop', T: 'Teleoperation', END: None, SG: 'G: Navigation',
                   SGS: None, P: 'Paused'},
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
