"""
The operating cycle's table: checked at start-up, published, and the same as the README's.

The state interface refuses to start when a configured plugin declares an outcome the cycle does
not handle, or when the table leaves a role unreachable from Boot; it publishes the cycle on
``robot_sm/cycle``; the README's state table is the one
:func:`robot_sm.statemachine.cycle.table` prints.
"""

import json
import os
import pathlib
from typing import Any, Dict, List, Tuple

from operator_suite import StartSuite
import pytest
from robot_sm import qos
from robot_sm.statemachine import cycle
from robot_sm.statemachine.cycle import check_table, CycleError, describe, Role, table
from robot_sm.statemachine.navigation_state import NavigationState
from robot_sm.statemachine.registry import installed_plugins
from robot_sm.testing import python_module_argv, ros_args, RosHarness
from statemachine_fakes import World
from std_msgs.msg import String

REPOSITORY = pathlib.Path(__file__).resolve().parents[2]


class DockingNavigation(NavigationState):
    """A navigation plugin with an outcome of its own."""

    OUTCOMES = NavigationState.OUTCOMES + ('docked',)


def test_the_shipped_cycle_is_whole_and_handles_every_default_plugin() -> None:
    check_table()
    World()  # checks the default plugins' outcomes, as the state interface does at start


def test_an_outcome_the_cycle_does_not_handle_is_refused_naming_role_plugin_and_outcome(
) -> None:
    with pytest.raises(CycleError) as refusal:
        World({'navigation_plugin': 'DockingNavigation'},
              extra={'DockingNavigation': DockingNavigation})
    assert str(refusal.value).startswith(
        "role 'exploration navigation' (navigation_plugin 'DockingNavigation') declares outcome "
        "'docked', which the cycle does not handle (it handles: succeeded, failed, ")


def test_a_role_the_table_cannot_reach_from_boot_is_refused(
        monkeypatch: pytest.MonkeyPatch) -> None:
    transitions = dict(cycle.TRANSITIONS)
    transitions[Role.WAYPOINT_NAVIGATION] = {
        outcome: target for outcome, target in transitions[Role.WAYPOINT_NAVIGATION].items()
        if target is not Role.ROUTINE}
    monkeypatch.setattr(cycle, 'TRANSITIONS', transitions)
    with pytest.raises(CycleError, match="role 'routine' cannot be reached from boot"):
        check_table()


def suite_players() -> Dict[Role, List[Tuple[str, str]]]:
    """Return the state names of the suite's own plugins (the test package's left out)."""
    players = World(parameters={'navigation_plugin': 'Navigation'}).creator.check_cycle()
    plugins = installed_plugins()
    return {role: [(plugin, name) for plugin, name in named
                   if plugins[plugin].startswith('robot_sm.')]
            for role, named in players.items()}


def test_the_published_cycle_is_json_a_program_can_follow() -> None:
    document = json.loads(json.dumps(describe(suite_players())))
    roles = {role['role']: role for role in document['roles']}
    assert document['start'] == 'boot'
    assert document['interrupt_priority'] == ['EMERGENCY_STOP', 'TELEOPERATION', 'SIMPLE_GOAL',
                                              'SIMPLE_GOAL_STOP', 'PAUSE', 'INTERRUPT_END']
    assert document['continue']['waypoint_navigation'] == 'waypoint_following'
    # Every target is a role of the document.
    for role in roles.values():
        for target in [*role['outcomes'].values(), *role['interrupts'].values()]:
            assert target in roles
    assert roles['simple_goal_navigation']['plugins'] == [
        {'plugin': 'Navigation', 'state': 'G: Navigation'}]
    assert roles['boot_emergency_stop']['interrupts'] == {'INTERRUPT_END': 'boot'}


def test_the_readme_s_state_table_is_the_cycle() -> None:
    text = table(describe(suite_players()))
    documents = [REPOSITORY / 'README.md', *sorted((REPOSITORY / 'docs').glob('*.md'))]
    assert any(text in path.read_text() for path in documents if path.exists()), (
        'the state table of the README (or docs/) differs from the cycle; replace it with:\n'
        + text)


def test_the_cycle_is_published_for_programs_to_read(ros: RosHarness,
                                                     start_scripted: StartSuite) -> None:
    start_scripted({'mapping_plugin': 'Spin'})
    cycle = json.loads(ros.record(String, 'robot_sm/cycle', qos.STATE).wait_for().data)
    roles = {role['role']: role for role in cycle['roles']}
    assert cycle['start'] == 'boot'
    assert cycle['interrupt_priority'][:2] == ['EMERGENCY_STOP', 'TELEOPERATION']
    assert roles['exploration_navigation']['plugins'] == [
        {'plugin': 'ScriptedNavigation', 'state': 'E: Navigation'}]
    assert roles['mapping']['plugins'] == [{'plugin': 'Spin', 'state': 'E: Spin'}]
    assert roles['waypoint_navigation']['outcomes']['routine'] == 'routine'
    assert {'plugin': 'WaitRoutine', 'state': 'W: Waiting'} in roles['routine']['plugins']
    assert roles['boot']['interrupts'] == {'EMERGENCY_STOP': 'boot_emergency_stop'}


DOCKING_PLUGIN = """
from robot_sm.statemachine.navigation_state import NavigationState


class DockingNavigation(NavigationState):
    OUTCOMES = NavigationState.OUTCOMES + ('docked',)


class DockRoutine(NavigationState):
    OUTCOMES = ('succeeded', 'docked')
"""


@pytest.mark.parametrize('parameters, refusal', [
    ({'navigation_plugin': 'DockingNavigation'},
     "role 'exploration navigation' (navigation_plugin 'DockingNavigation') declares outcome "
     "'docked', which the cycle does not handle (it handles: "),
    ({}, "role 'routine' (routine plugin 'DockRoutine') declares outcome 'docked', which the "
         'cycle does not handle (it handles: succeeded, failed, aborted, stopped)'),
])
def test_a_plugin_with_an_outcome_the_cycle_does_not_handle_stops_the_node_with_one_line(
        ros: RosHarness, tmp_path: pathlib.Path, parameters: Dict[str, Any],
        refusal: str) -> None:
    # A robot package installed beside the suite, with one plugin of each kind.
    (tmp_path / 'docking.py').write_text(DOCKING_PLUGIN)
    metadata = tmp_path / 'docking-0.1.0.dist-info'
    metadata.mkdir()
    (metadata / 'METADATA').write_text('Metadata-Version: 2.1\nName: docking\nVersion: 0.1.0\n')
    (metadata / 'entry_points.txt').write_text(
        '[robot_sm.states]\nDockingNavigation = docking:DockingNavigation\n'
        'DockRoutine = docking:DockRoutine\n')
    path = os.pathsep.join([str(tmp_path), os.environ.get('PYTHONPATH', '')])
    process = ros.start_process(python_module_argv(
        'robot_sm.nodes.state_interface', *ros_args(ros.namespace, parameters)),
        env={'PYTHONPATH': path})
    assert process.wait(30.0) == 2
    assert process.output.strip().splitlines()[-1].startswith(
        f'StateInterface: refusing to start: {refusal}')
