"""
Pause and continue without ROS: each activity, refusals, e-stop, teleoperation, a restart.

Each activity kind, the refusals, the e-stop over pause, teleoperation while paused, and what
is kept across a restart (and a corrupt file).

Time is injected (the fake world's clock); the suite's services are the data store's rules.
"""

import pathlib
import time
from typing import Any, Dict, Mapping

from robot_sm.contract import Activity, Outcome
from robot_sm.plugins.routines import WaitRoutine
from robot_sm.statemachine.behaviours import BehaviourState
from robot_sm.statemachine.cycle import Role
from robot_sm.statemachine.resumable import (
    from_document,
    Resumable,
    ResumableFile,
    to_document,
)
from robot_sm.waypoints import DataStore, StoreSettings, WaypointList
from robot_sm.waypoints.navigation_goal import NavigationMode
from statemachine_fakes import AUTONOMOUS, nav_goal, STOPPED, TELEOP, World, world

WAIT_TICKS = 200


def following(routine: str = '', **parameters: Any) -> World:
    """Return a booted world following three waypoints; a goal takes 40 ticks (2 s)."""
    w = world(**{'ScriptedNavigation.drive_ticks': 40, **parameters})
    w.suite.store = DataStore(WaypointList(), StoreSettings(waypoint_routines=('Wait',)))
    w.suite.add_waypoints(1.0, 2.0, 3.0)
    if routine:
        w.suite.store.set_waypoint_routine(0, routine)
    assert w.machine.start_stop_waypoint_following(True).success
    w.run_until('W: Navigation')
    return w


def visited(w: World) -> list:
    return [wp.visited for wp in w.suite.store.waypoints.waypoints]


def test_a_round_paused_in_a_drive_holds_and_continues_with_the_same_waypoint() -> None:
    w = following()
    w.tick(10)
    run = w.machine.runs.current
    answer = w.machine.pause()
    assert answer == (True, 'following round paused in W: Navigation')
    w.tick()
    assert w.state == 'Paused (W: Navigation)'
    report = w.machine.state_report()
    assert (report.run, report.paused, report.resumable) == (None, run, 'following round')
    assert w.kept[-1] is not None and w.kept[-1].paused and w.kept[-1].role is \
        Role.WAYPOINT_FOLLOWING
    w.tick(100)  # held: nothing is driven to, nothing marked
    assert visited(w) == [False, False, False] and w.state == 'Paused (W: Navigation)'
    assert w.machine.resume() == (True, 'following round continues from W: Navigation')
    w.run_until('W: Navigation')
    assert w.suite.goals()[-1][2] == 0  # the same waypoint again
    w.run_until('Idle', limit=1000)
    assert visited(w) == [True, True, True]
    ended = w.machine.runs.last
    assert ended is not None and (ended.run, ended.outcome) == (run, Outcome.SUCCEEDED)
    assert w.kept[-1] is None  # nothing runs: nothing to keep


def test_a_wait_routine_paused_waits_only_what_was_left() -> None:
    w = following('Wait', **{'WaitRoutine.wait_duration': 2.0})
    w.run_until('W: Waiting', limit=400)
    w.tick(30)  # 1.5 s of the 2 s waited
    assert w.machine.pause().success
    w.tick(40)
    assert w.state == 'Paused (W: Waiting)'
    assert w.machine.resume().success
    w.tick()
    assert w.state == 'W: Waiting'
    w.tick(8)  # 0.4 s: still waiting what was left (0.5 s)
    assert w.state == 'W: Waiting'
    w.run_until('W: Navigation', limit=20)  # then on to the next waypoint
    assert visited(w)[0]


def test_exploration_and_a_simple_goal_continue_where_they_were() -> None:
    w = world()
    assert w.machine.start_stop_exploration(True).success
    w.run_until('E: Mapping')
    assert w.machine.pause() == (True, 'exploration paused in E: Mapping')
    w.tick()
    assert w.machine.resume().success
    w.tick()
    assert w.state == 'E: Mapping'
    assert w.machine.start_stop_exploration(False).success
    w.run_until('Idle')
    assert w.machine.on_simple_goal(nav_goal(NavigationMode.SIMPLE_GOAL, x=4.0).pose)
    w.run_until('G: Navigation')
    assert w.machine.pause() == (True, 'simple goal to (4, 0) paused in G: Navigation')
    w.tick()
    assert w.machine.resume().success
    w.tick()
    assert w.state == 'G: Navigation' and w.machine.state is not None
    assert w.machine.state.goal is not None and w.machine.state.goal.pose.x == 4.0


def test_pause_and_continue_refuse_what_they_cannot_do() -> None:
    w = world()
    assert w.machine.pause() == (False, 'Nothing to pause: no activity runs (Idle)')
    assert w.machine.resume() == (False, 'Nothing is paused (Idle)')
    w.machine.on_operation_mode(TELEOP, False)
    w.tick()
    assert w.machine.pause() == (False, 'Nothing to pause: teleoperation cannot be paused '
                                        '(Teleoperation)')
    w.machine.on_operation_mode(AUTONOMOUS, False)
    w.tick()
    w = following()
    assert w.machine.pause().success
    w.tick()
    refused = w.machine.start_stop_exploration(True)
    assert (refused.success, refused.message) == (
        False, 'following round is paused: continue it (robot-sm continue) or stop it first')
    # A stop of the paused activity ends it, canceled.
    assert w.machine.start_stop_waypoint_following(False) == (True, 'Waypoint following '
                                                                    'stopped')
    w.run_until('Idle')
    assert w.machine.runs.last is not None and w.machine.runs.last.outcome is Outcome.CANCELED
    assert w.machine.resume() == (False, 'Nothing is paused (Idle)')


def test_the_e_stop_wins_and_its_release_leads_back_to_paused() -> None:
    w = following()
    assert w.machine.pause().success
    w.tick()
    w.machine.on_operation_mode(STOPPED, True)
    w.tick()
    assert w.state == 'Emergency Stop'
    refused = w.machine.resume()
    assert not refused.success and 'release the e-stop first' in refused.message
    w.machine.on_operation_mode(STOPPED, False)  # released: paused still, not Idle
    w.tick()
    assert w.state == 'Paused (W: Navigation)'
    assert w.machine.resume().success
    w.run_until('W: Navigation')
    # An e-stop while it runs (not paused) still ends it.
    w.machine.on_operation_mode(AUTONOMOUS, True)
    w.tick()
    assert w.machine.runs.last is not None and \
        w.machine.runs.last.outcome is Outcome.STOPPED_BY_EMERGENCY_STOP


def test_teleoperation_while_paused_and_continue_hands_back() -> None:
    w = following()
    assert w.machine.pause().success
    w.tick()
    w.machine.on_operation_mode(TELEOP, False)
    w.tick()
    assert w.state == 'Teleoperation'
    assert w.machine.state_report().paused is not None  # still paused
    w.machine.on_operation_mode(STOPPED, False)  # teleoperation ended: paused again
    w.tick()
    assert w.state == 'Paused (W: Navigation)'
    w.machine.on_operation_mode(TELEOP, False)
    w.tick()
    answer = w.machine.resume()  # from teleoperation: it hands the robot back
    assert answer == (True, 'following round continues from W: Navigation (teleoperation '
                            'handed back to it)')
    w.machine.on_operation_mode(AUTONOMOUS, False)
    w.run_until('W: Navigation')
    teleoperation = w.machine.runs.last
    assert teleoperation is not None and teleoperation.run.activity is Activity.TELEOPERATION


class Unpausable(BehaviourState):
    """A mapping state that cannot be paused."""

    PAUSABLE = False


def test_a_state_that_cannot_pause_is_stopped_and_says_so() -> None:
    w = world(mapping_plugin='Unpausable', extra={'Unpausable': Unpausable})
    assert w.machine.start_stop_exploration(True).success
    w.run_until('E: Unpausable')
    answer = w.machine.pause()
    assert answer == (True, 'E: Unpausable cannot pause: the activity was stopped instead')
    w.run_until('Idle')
    assert w.machine.runs.last is not None and w.machine.runs.last.outcome is Outcome.CANCELED


def test_max_pause_abandons_the_activity() -> None:
    w = following(**{'Paused.max_pause': 1.0})
    assert w.machine.pause().success
    w.tick(15)
    assert w.state.startswith('Paused')
    w.run_until('Idle', limit=10)
    ended = w.machine.runs.last
    assert ended is not None and ended.outcome is Outcome.CANCELED
    assert ended.text == ('following round abandoned: paused for more than 1 s (max_pause)')


def test_what_is_kept_comes_back_paused_after_a_restart(tmp_path: pathlib.Path) -> None:
    w = following(**{'WaitRoutine.wait_duration': 5.0})
    running = w.kept[-1]
    assert running is not None and not running.paused  # a running activity is kept too
    file = ResumableFile(tmp_path / 'paused_activity.yaml')
    file.write(_yaml(to_document(running, '2026-11-28T10:00:00.000Z')))
    kept = file.load(time.time()).resumable
    assert kept is not None and kept.paused  # a running one comes back paused
    assert (kept.activity, kept.role, kept.state) == (Activity.WAYPOINT_FOLLOWING,
                                                      Role.WAYPOINT_FOLLOWING, 'W: Navigation')
    # A new machine with the same waypoints (the service provider keeps them) boots to Paused.
    restarted = World({'ScriptedNavigation.drive_ticks': 2})
    restarted.suite.add_waypoints(1.0, 2.0, 3.0)
    restarted.suite.store.mark_visited(0)
    restarted.machine.restore(kept)
    restarted.machine.start()
    restarted.tick(3)
    assert restarted.state == 'Paused (W: Navigation)'
    assert restarted.machine.state_report().resumable == 'following round'
    assert restarted.machine.resume().success
    restarted.run_until('Idle', limit=400)
    positions = [p for m, _, p in restarted.suite.goals()
                 if m == NavigationMode.WAYPOINT_FOLLOWING]
    assert positions == [1, 2]  # none visited twice


def test_a_routine_s_place_and_a_corrupt_file(tmp_path: pathlib.Path) -> None:
    routine = Resumable(Activity.WAYPOINT_FOLLOWING, 'waypoint following', Role.ROUTINE,
                        'W: Waiting', nav_goal(NavigationMode.WAYPOINT_FOLLOWING, 2.0, 'Wait'),
                        0, {'remaining': 1.25}, True, 0.0)
    back = from_document(_load(_yaml(to_document(routine, 'now'))))
    assert back is not None
    assert (back.role, back.goal, back.place) == (Role.ROUTINE, routine.goal, routine.place)
    nothing = {'format': 'robot_sm/paused_activity', 'version': 1, 'activity': 'none'}
    assert from_document(_load(_yaml(nothing))) is None
    broken = ResumableFile(tmp_path / 'paused_activity.yaml')
    broken.write('format: robot_sm/paused_activity\nversion: 1\nactivity: [\n')
    load = broken.load(time.time())
    assert load.resumable is None and 'is not valid YAML' in load.problem
    assert not broken.path.exists() and list(tmp_path.glob('paused_activity.yaml.corrupt-*'))
    assert WaitRoutine.on_pause is not BehaviourState.on_pause  # the routine keeps its time


def _yaml(document: Mapping[str, Any]) -> str:
    import yaml
    return yaml.safe_dump(dict(document), sort_keys=False)


def _load(text: str) -> Dict[str, Any]:
    import yaml
    return yaml.safe_load(text)
