"""
What the web console makes of the suite, with no ROS, no server and time injected.

The event timeline (audit entries, log lines, transitions, e-stops), the pages' heartbeats, and
the cycle diagram's layout of the shipped cycle and of a plugin package's own. Messages are
plain objects with the fields of theirs.
"""

import itertools
import json
import types
from typing import Any, Dict, List, Optional, Tuple

import pytest
from robot_sm.contract import Activity, Code, Outcome
from robot_sm.frontends.web.cycle_diagram import CycleDocumentError, layout
from robot_sm.frontends.web.events import (
    audit_event,
    EstopEvents,
    EventLog,
    log_event,
    log_node,
    StateEvents,
)
from robot_sm.frontends.web.heartbeat import PageHeartbeats
from robot_sm.frontends.web.views import state_view
from robot_sm.statemachine.cycle import describe, Role


def message(**fields: Any) -> types.SimpleNamespace:
    return types.SimpleNamespace(**fields)


def stamp(seconds: float = 0.0) -> types.SimpleNamespace:
    return message(sec=int(seconds), nanosec=int((seconds % 1) * 1e9))


def state(name: str, role: str, activity: int = Activity.NONE, activity_id: int = 0,
          outcome: int = Outcome.NONE, last_activity: int = Activity.NONE,
          last_activity_id: int = 0, text: str = '', paused: bool = False) -> Dict[str, Any]:
    return state_view(message(
        stamp=stamp(100.0), name=name, role=role, plugin='', activity=activity,
        activity_name='', activity_id=activity_id, last_outcome=outcome,
        last_activity=last_activity, last_activity_id=last_activity_id,
        last_outcome_text=text, paused=paused, paused_activity=Activity.NONE, resumable=''))


# -- the timeline --------------------------------------------------------------------------------


def test_an_audit_entry_names_the_operator_the_command_and_the_suite_s_answer() -> None:
    entry = message(stamp=stamp(12.5), kind=0, command='select_mode',
                    arguments=json.dumps({'mode': 'autonomy'}), success=False,
                    code=int(Code.NOT_IN_CONTROL), message='bob holds control',
                    by=message(name='alice', surface='cli', address='10.0.0.7'))
    found = audit_event(entry, 99.0)
    assert found['kind'] == 'operator' and found['level'] == 'warn'
    assert found['by'] == 'alice (cli)' and found['time'] == 12.5
    assert found['text'] == 'select_mode mode autonomy: bob holds control'
    raw = message(stamp=stamp(), kind=3, command='reset_waypoints', arguments='', success=True,
                  code=0, message='', by=message(name='', surface='', address=''))
    assert audit_event(raw, 99.0)['by'] == 'raw ROS'
    assert audit_event(raw, 99.0)['text'] == 'reset_waypoints: done'
    assert audit_event(raw, 99.0)['time'] == 99.0  # no stamp: when it came


@pytest.mark.parametrize('logger, namespace, node', [
    ('robot1.state_interface', '/robot1', 'state_interface'),
    ('robot1.state_interface.plugin', '/robot1', 'state_interface'),
    ('fleet.robot1.robot_control_mux', '/fleet/robot1', 'robot_control_mux'),
    ('robot2.state_interface', '/robot1', None),
    ('robot10.state_interface', '/robot1', None),
    ('state_interface', '/', 'state_interface'),
    ('robot1.state_interface', '/', 'robot1'),  # the graph tells: no node robot1 in /
])
def test_a_log_line_belongs_to_a_node_of_its_namespace(logger: str, namespace: str,
                                                       node: Optional[str]) -> None:
    assert log_node(logger, namespace) == node


def test_only_the_suite_s_warnings_and_errors_are_events() -> None:
    suite = {'state_interface', 'robot_control_mux'}.__contains__

    def line(level: int, name: str) -> types.SimpleNamespace:
        return message(level=level, name=name, msg='x' * 900, stamp=stamp(5.0))
    assert log_event(line(20, 'r.state_interface'), '/r', suite, 0.0) is None  # INFO
    assert log_event(line(30, 'r.rviz'), '/r', suite, 0.0) is None  # not the suite's
    assert log_event(line(30, 'q.state_interface'), '/r', suite, 0.0) is None  # elsewhere
    warning = log_event(line(30, 'r.state_interface'), '/r', suite, 0.0)
    error = log_event(line(50, 'r.robot_control_mux'), '/r', suite, 0.0)
    assert warning is not None and error is not None
    assert (warning['level'], warning['by'], warning['time']) == ('warn', 'state_interface', 5.0)
    assert error['level'] == 'error' and error['text'].endswith('… (cut)')
    assert len(error['text']) <= 600


def test_transitions_and_the_ends_of_activities_are_events() -> None:
    events = StateEvents()
    first = events.take(state('Idle', 'idle'), 0.0)
    assert [e['text'] for e in first] == ['state Idle']
    assert events.take(state('Idle', 'idle'), 1.0) == []  # nothing changed
    driving = events.take(state('W: Navigation', 'waypoint_navigation',
                                Activity.WAYPOINT_FOLLOWING, 1), 2.0)
    assert [(e['from'], e['to']) for e in driving] == [('idle', 'waypoint_navigation')]
    stopped = events.take(state('Emergency Stop', 'emergency_stop', outcome=int(
        Outcome.STOPPED_BY_EMERGENCY_STOP), last_activity=int(Activity.WAYPOINT_FOLLOWING),
        last_activity_id=1, text='the e-stop was engaged'), 3.0)
    assert [e['kind'] for e in stopped] == ['state', 'state']
    assert stopped[0]['level'] == 'warn' and 'stopped by emergency stop' in stopped[0]['text']
    assert stopped[0]['outcome'] == 'stopped_by_emergency_stop'
    assert (stopped[1]['from'], stopped[1]['to']) == ('waypoint_navigation', 'emergency_stop')


def test_an_e_stop_is_told_with_the_cause_the_mux_gives_after_it() -> None:
    estop = EstopEvents(wait=2.5)
    assert estop.mode(False, 0.0) == []
    assert estop.reason('', 0.5) == []
    assert estop.mode(True, 1.0) == []  # the cause comes with the next diagnostics
    engaged = estop.reason('STOP by alice (cli)', 1.6)
    assert [(e['kind'], e['time'], e['cause']) for e in engaged] == [
        ('estop', 1.0, 'STOP by alice (cli)')]
    assert estop.reason('STOP by alice (cli)', 2.6) == []  # told once
    assert [e['text'] for e in estop.mode(False, 5.0)] == ['e-stop released']
    assert estop.mode(True, 6.0) == [] and estop.due(8.0) == []
    silent = estop.due(8.6)
    assert silent[0]['time'] == 6.0 and 'no cause' in silent[0]['text']


def test_an_e_stop_engaged_before_the_console_started_takes_the_reason_already_known() -> None:
    estop = EstopEvents()
    assert estop.reason('heartbeat silent for more than 1 s', 0.0) == []
    found = estop.mode(True, 0.2)
    assert found[0]['cause'] == 'heartbeat silent for more than 1 s'


def test_the_log_numbers_its_events_and_keeps_the_newest() -> None:
    log = EventLog(capacity=3)
    for number in range(5):
        log.add({'kind': 'log', 'text': str(number)})
    assert [e['seq'] for e in log.since(0)] == [3, 4, 5]
    assert [e['text'] for e in log.since(4)] == ['4']
    assert log.epoch != EventLog().epoch


# -- the pages' heartbeats -----------------------------------------------------------------------


def test_the_robot_hears_each_operator_page_on_its_own_and_no_read_only_one() -> None:
    beats = PageHeartbeats(min_interval=0.05)
    beats.join('phone', operator=True)
    beats.join('laptop', operator=True)
    beats.join('watcher', operator=False)
    assert beats.ping('phone', 0.0) and not beats.ping('laptop', 0.01)  # one beat for both
    assert not beats.ping('watcher', 0.2) and not beats.counts('watcher')
    assert beats.ping('laptop', 0.3) and beats.beating(0.3, within=0.5) == 2
    beats.leave('phone')  # one of two operator pages closed: the other beats on
    assert beats.ping('laptop', 0.4) and beats.beating(0.4, within=0.5) == 1
    beats.leave('laptop')
    assert not beats.ping('laptop', 0.5) and beats.beating(0.5, within=0.5) == 0


def test_only_the_pages_that_count_beat() -> None:
    holder = 'laptop'  # with control: the holder's page
    beats = PageHeartbeats(counting=lambda page: page == holder)
    beats.join('phone', operator=True)
    beats.join('laptop', operator=True)
    assert not beats.ping('phone', 0.0) and not beats.counts('phone')
    assert beats.ping('laptop', 0.1)


# -- the cycle diagram ---------------------------------------------------------------------------


def shipped() -> Dict[str, Any]:
    players = {role: [(role.name.title(), role.value.title())] for role in Role}
    players[Role.ROUTINE] = [('WaitRoutine', 'W: Waiting'), ('ReversingRoutine', 'W: Reversing')]
    return json.loads(json.dumps(describe(players)))


def overlap(a: Dict[str, Any], b: Dict[str, Any]) -> bool:
    return (a['x'] < b['x'] + b['width'] and b['x'] < a['x'] + a['width']
            and a['y'] < b['y'] + b['height'] and b['y'] < a['y'] + a['height'])


def transitions(document: Dict[str, Any]) -> List[Tuple[str, str, str]]:
    return [(role['role'], target, name) for role in document['roles']
            for name, target in (*role['outcomes'].items(), *role['interrupts'].items())]


def shown(drawn: Dict[str, Any], source: str, target: str, name: str) -> bool:
    """Return whether the diagram shows ``name`` leading from ``source`` to ``target``."""
    node = next(n for n in drawn['nodes'] if n['role'] == source)
    group = f"group:{node['activity']}"
    arrows = any(e['to'] == target and e['from'] in (source, group) and name in e['labels']
                 for e in drawn['edges'])
    lines = [line for line in node['lines'] if line.get('to') == target] + [
        line for g in drawn['groups'] if g['activity'] == node['activity']
        for line in g['lines'] if line.get('to') == target]
    words = ' '.join(line['text'] for line in lines).replace(',', ' ').split()
    return arrows or name in words


@pytest.mark.parametrize('document', [shipped(), {
    # A plugin package's own cycle: roles, activities and names the shipped one does not have.
    'start': 'warm_up',
    'roles': [
        {'role': 'warm_up', 'activity': '', 'plugins': [{'plugin': 'WarmUp', 'state': 'Warm'}],
         'outcomes': {'ready': 'wait'}, 'interrupts': {'EMERGENCY_STOP': 'halt'}},
        {'role': 'wait', 'activity': '', 'plugins': [], 'outcomes': {'pick': 'reach'},
         'interrupts': {'EMERGENCY_STOP': 'halt'}},
        {'role': 'halt', 'activity': '', 'plugins': [], 'outcomes': {},
         'interrupts': {'INTERRUPT_END': 'wait'}},
        {'role': 'reach', 'activity': 'Picking', 'plugins': [{'plugin': 'Reach', 'state': 'P: '
                                                              'Reach'}],
         'outcomes': {'reached': 'grasp', 'failed': 'wait'},
         'interrupts': {'EMERGENCY_STOP': 'halt'}},
        {'role': 'grasp', 'activity': 'Picking', 'plugins': [{'plugin': 'Grasp', 'state': 'P: '
                                                              'Grasp'}],
         'outcomes': {'held': 'wait', 'slipped': 'reach', 'again': 'grasp'},
         'interrupts': {'EMERGENCY_STOP': 'halt'}},
    ]}], ids=['shipped', 'plugin'])
def test_the_diagram_places_every_role_apart_and_shows_every_transition(
        document: Dict[str, Any]) -> None:
    drawn = layout(document)
    roles = {node['role'] for node in drawn['nodes']}
    assert roles == {role['role'] for role in document['roles']}
    for a, b in itertools.combinations(drawn['nodes'], 2):
        assert not overlap(a, b), (a['role'], b['role'])
    for node in drawn['nodes']:
        assert 0 <= node['x'] and node['x'] + node['width'] <= drawn['width']
        assert 0 <= node['y'] and node['y'] + node['height'] <= drawn['height']
    for source, target, name in transitions(document):
        assert shown(drawn, source, target, name), (source, target, name)
    states = {line['text'] for node in drawn['nodes'] for line in node['lines']}
    for role in document['roles']:
        for plugin in role['plugins']:
            assert plugin['state'] in states


def test_the_start_comes_first_and_each_activity_has_its_frame() -> None:
    drawn = layout(shipped())
    by_role = {node['role']: node for node in drawn['nodes']}
    assert by_role['boot']['rank'] == 0 and by_role['idle']['rank'] == 1
    assert by_role['idle']['y'] < by_role['waypoint_following']['y']
    frames = {group['activity']: group for group in drawn['groups']}
    assert set(frames) == {'Exploration', 'Waypoint following', 'Simple Goal'}
    for node in drawn['nodes']:
        if node['activity']:
            frame = frames[node['activity']]
            assert frame['x'] <= node['x'] and node['x'] + node['width'] <= (
                frame['x'] + frame['width'])
            assert frame['y'] <= node['y'] and node['y'] + node['height'] <= (
                frame['y'] + frame['height'])


@pytest.mark.parametrize('document, says', [
    ({}, 'no list of roles'),
    ({'roles': []}, 'no roles'),
    ({'roles': [{'activity': ''}]}, 'needs a name'),
    ({'roles': [{'role': 'a', 'outcomes': ['b']}]}, 'outcomes must be an object'),
])
def test_a_document_that_is_no_cycle_is_refused_saying_why(document: Any, says: str) -> None:
    with pytest.raises(CycleDocumentError, match=says):
        layout(document)
