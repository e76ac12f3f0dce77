"""Waypoint following without ROS: RSM's rules for each following mode, routines, failures."""

from typing import List, Optional

from robot_sm.waypoints.navigation_goal import NavigationMode
from statemachine_fakes import STOPPED, World, world


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
