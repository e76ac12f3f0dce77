"""The data store: navigation goals, completion rules, failed goals, obsolete goals, saving."""

from typing import List

import pytest
from robot_sm.waypoints import (
    DataStore,
    GoalStatus,
    NavigationMode,
    Pose,
    RequestError,
    SaveError,
    StoreSettings,
    WaypointList,
)

REACHED, FAILED, ABORTED, ACTIVE = (GoalStatus.REACHED, GoalStatus.FAILED, GoalStatus.ABORTED,
                                    GoalStatus.ACTIVE)
EXPLORATION, WAYPOINT, SIMPLE = 0, 1, 2


def store_with(*xs: float, **kwargs) -> DataStore:
    store = DataStore(settings=StoreSettings(waypoint_routines=('Wait', 'Reversing'), **kwargs))
    for x in xs:
        store.add_waypoint(Pose(x=x), '', -1)
    return store


def flags(store: DataStore) -> list:
    return [(w.visited, w.unreachable) for w in store.waypoints.waypoints]


def test_add_returns_the_new_id_and_validates_the_routine() -> None:
    store = store_with(0.0, 1.0)
    new_id, message = store.add_waypoint(Pose(x=5.0), 'Wait', 1)
    assert new_id == 3 and message == 'Added waypoint 3 at index 1'
    assert store.add_waypoint(Pose(), '', -1) == (4, 'Added waypoint 4 at the end, index 3')
    with pytest.raises(RequestError, match="waypoint.routine: unknown routine 'Dance'"):
        store.add_waypoint(Pose(), 'Dance', -1)
    with pytest.raises(RequestError, match="routine: unknown routine 'Dance'"):
        store.set_waypoint_routine(0, 'Dance')
    assert len(store.waypoints) == 4 and store.waypoints.next_id == 5


def test_waypoint_goal_follows_its_waypoint_across_inserts_and_removals() -> None:
    store = store_with(0.0, 1.0, 2.0)
    store.set_navigation_goal(Pose(x=2.0), WAYPOINT, 2, 'Wait')
    assert store.navigation_goal.waypoint_id == 3 and store.navigation_goal_index() == 2
    store.add_waypoint(Pose(x=-1.0), '', 0)
    assert store.navigation_goal_index() == 3
    store.remove_waypoint(1)
    assert store.navigation_goal_index() == 2
    store.complete_navigation_goal(REACHED, True)
    assert flags(store) == [(False, False), (False, False), (True, False)]
    assert [w.pose.x for w in store.waypoints.waypoints if w.visited] == [2.0]
    store.remove_waypoint(2)
    assert store.navigation_goal_index() == -1
    message = store.complete_navigation_goal(FAILED, True)
    assert 'was removed, nothing marked' in message
    assert flags(store) == [(False, False), (False, False)]


def test_waypoint_completion_rules() -> None:
    store = store_with(0.0, 1.0, 2.0)
    for index, status in ((0, REACHED), (1, FAILED), (2, ABORTED)):
        store.set_navigation_goal(Pose(x=float(index)), WAYPOINT, index, '')
        store.complete_navigation_goal(status, False)
    store.set_navigation_goal(Pose(x=2.0), WAYPOINT, 2, '')
    store.complete_navigation_goal(ACTIVE, True)
    assert flags(store) == [(True, False), (False, True), (False, False)]


def test_set_navigation_goal_validates_everything_and_changes_nothing_on_error() -> None:
    store = store_with(0.0)
    store.set_navigation_goal(Pose(x=9.0), SIMPLE, 0, '')
    before = store.navigation_goal
    with pytest.raises(RequestError, match='navigation_mode: 3 is not a navigation mode'):
        store.set_navigation_goal(Pose(), 3, -1, '')
    with pytest.raises(RequestError, match='navigation_mode: -1 is not'):
        store.set_navigation_goal(Pose(), -1, -1, '')
    with pytest.raises(RequestError, match='waypoint_position: 1 is out of range'):
        store.set_navigation_goal(Pose(), WAYPOINT, 1, '')
    with pytest.raises(RequestError, match="routine: unknown routine 'Dance'"):
        store.set_navigation_goal(Pose(), WAYPOINT, 0, 'Dance')
    assert store.navigation_goal == before
    # Other modes ignore waypoint_position: a default request (position 0) is fine.
    store.set_navigation_goal(Pose(x=1.0), EXPLORATION, 0, '')
    assert store.navigation_goal.waypoint_id is None and store.navigation_goal_index() == -1


def test_completion_without_a_goal_or_for_a_simple_goal_changes_nothing() -> None:
    store = store_with(0.0)
    assert store.navigation_goal.mode is NavigationMode.NONE
    assert store.complete_navigation_goal(REACHED, True) == 'Navigation goal completed (REACHED)'
    store.set_navigation_goal(Pose(), SIMPLE, -1, '')
    store.complete_navigation_goal(FAILED, True)
    assert flags(store) == [(False, False)] and store.failed_goals == ()
    with pytest.raises(RequestError, match='status.goal_status: 4 is not a goal status'):
        store.complete_navigation_goal(4, True)


def test_exploration_status_overwrite_rule_and_blacklist() -> None:
    store = store_with()
    goal = Pose(x=3.0, y=4.0)
    store.set_navigation_goal(goal, EXPLORATION, -1, '')
    store.complete_navigation_goal(FAILED, True)
    assert store.exploration_status is FAILED and store.failed_goals == (goal,)
    # A later report that is not from navigation does not overwrite a final status.
    store.complete_navigation_goal(REACHED, False)
    assert store.exploration_status is FAILED and store.failed_goals == (goal,)
    # A report from navigation always counts; REACHED clears the blacklist.
    store.complete_navigation_goal(REACHED, True)
    assert store.exploration_status is REACHED and store.failed_goals == ()
    # ABORTED replaces REACHED (a mapping state interrupted after arrival) ...
    store.complete_navigation_goal(ABORTED, False)
    assert store.exploration_status is ABORTED
    # ... but not the other way round.
    store.complete_navigation_goal(REACHED, False)
    assert store.exploration_status is ABORTED
    # While ACTIVE any report counts.
    store.set_navigation_goal(goal, EXPLORATION, -1, '')
    assert store.exploration_status is ACTIVE
    store.complete_navigation_goal(FAILED, False)
    store.set_navigation_goal(Pose(x=3.01, y=4.0), EXPLORATION, -1, '')
    store.complete_navigation_goal(FAILED, True)
    assert store.failed_goals == (goal,), 'a goal within the tolerance is recorded once'


def test_failed_goals_are_deduplicated_within_the_euclidean_tolerance() -> None:
    store = store_with(failed_goal_tolerance=0.05)
    assert store.add_failed_goal(Pose(1.0, 1.0)) == 'Failed goal added (1 listed)'
    message = store.add_failed_goal(Pose(1.03, 1.03))  # 0.042 m away: the same goal
    assert 'already listed' in message and len(store.failed_goals) == 1
    store.add_failed_goal(Pose(1.04, 1.04))  # 0.057 m away (a per-axis box would merge it)
    assert len(store.failed_goals) == 2
    for _ in range(20):
        store.add_failed_goal(Pose(1.0, 1.0))
    assert len(store.failed_goals) == 2
    assert store.reset_failed_goals() == 'Failed goals reset' and store.failed_goals == ()


def test_goal_obsolete_check_and_reset_on_a_new_goal() -> None:
    store = store_with(exploration_goal_tolerance=0.05)
    goal = Pose(2.0, 0.0)
    frontiers = [Pose(5.0, 5.0), Pose(2.03, 0.03)]
    store.set_navigation_goal(goal, EXPLORATION, -1, '')
    assert store.update_exploration_goals(frontiers) is False
    assert store.update_exploration_goals([Pose(5.0, 5.0), Pose(2.04, 0.04)]) is True
    assert store.update_exploration_goals([]) is True, 'no frontier left: the goal is obsolete'
    store.set_navigation_goal(Pose(5.0, 5.0), EXPLORATION, -1, '')
    assert store.goal_obsolete is False, 'a new goal resets the flag at once'
    store.update_exploration_goals([])
    store.set_exploration_mode(False)
    assert store.goal_obsolete is False
    assert store.update_exploration_goals([]) is False, 'finish mode never makes goals obsolete'
    store.set_exploration_mode(True)
    store.set_navigation_goal(Pose(9.0, 9.0), SIMPLE, -1, '')
    assert store.update_exploration_goals([]) is False, 'only exploration goals turn obsolete'


def test_reverse_mode_changes_only_when_it_is_a_change() -> None:
    store = store_with()
    assert store.reverse_mode is False
    with pytest.raises(RequestError, match='data: already in the requested mode: forward'):
        store.check_reverse_mode(False)
    store.check_reverse_mode(True)
    assert store.set_reverse_mode(True) == 'Reverse mode active' and store.reverse_mode


def test_finish_round_applies_the_mode_rule() -> None:
    store = store_with(0.0, 1.0, 2.0)
    for index in range(3):
        store.mark_visited(index)
    assert store.finish_round() == (False, 'Single round finished')
    store.set_following_mode(2, False)
    assert store.finish_round()[0] is True
    assert store.waypoints.reverse and flags(store) == [
        (False, False), (False, False), (True, False)]


def test_every_change_is_saved_before_it_is_made() -> None:
    saved: List[WaypointList] = []
    store = DataStore(settings=StoreSettings(waypoint_routines=('Wait',)), save=saved.append)
    store.add_waypoint(Pose(), '', -1)
    store.set_waypoint_routine(0, 'Wait')
    store.set_following_mode(1, True)
    store.mark_visited(0)
    store.reset_waypoints()
    store.reset_waypoints()  # nothing to reset: not a change, not saved
    assert len(saved) == 5 and saved[-1] is store.waypoints

    def refuse(_: WaypointList) -> None:
        raise OSError(28, 'No space left on device')

    failing = DataStore(store.waypoints, StoreSettings(waypoint_routines=('Wait',)), save=refuse)
    before = failing.waypoints
    with pytest.raises(SaveError, match='nothing changed: .*No space left'):
        failing.add_waypoint(Pose(), '', -1)
    with pytest.raises(SaveError):
        failing.remove_waypoint(0)
    assert failing.waypoints is before
