"""The waypoint list: index rules, stable ids, pose validation, selection and round ends."""

import math

import pytest
from robot_sm.waypoints import (
    checked_pose,
    FollowingMode,
    next_waypoint_index,
    patrol_endpoint,
    Pose,
    RequestError,
    round_end,
    RoundEnd,
    WaypointList,
)


def at(x: float) -> Pose:
    return Pose(x=x)


def build(*xs: float, mode: FollowingMode = FollowingMode.SINGLE,
          reverse: bool = False) -> WaypointList:
    waypoints = WaypointList(mode=mode, reverse=reverse)
    for x in xs:
        waypoints, _ = waypoints.inserted(at(x), '', -1)
    return waypoints


def xs(waypoints: WaypointList) -> list:
    return [w.pose.x for w in waypoints.waypoints]


def ids(waypoints: WaypointList) -> list:
    return [w.id for w in waypoints.waypoints]


def test_insert_before_a_valid_position_else_append() -> None:
    waypoints = build(0.0, 1.0, 2.0)
    assert ids(waypoints) == [1, 2, 3]
    before_first, index = waypoints.inserted(at(9.0), '', 0)
    assert index == 0 and xs(before_first) == [9.0, 0.0, 1.0, 2.0]
    middle, index = waypoints.inserted(at(9.0), '', 2)
    assert index == 2 and xs(middle) == [0.0, 1.0, 9.0, 2.0]
    for end in (-1, 3, 17):
        appended, index = waypoints.inserted(at(9.0), '', end)
        assert index == 3 and xs(appended) == [0.0, 1.0, 2.0, 9.0]
    with pytest.raises(RequestError, match='position: -2 is not an index'):
        waypoints.inserted(at(9.0), '', -2)
    assert xs(waypoints) == [0.0, 1.0, 2.0], 'an edit never changes the list it was made on'


def test_ids_stay_with_their_waypoints_when_indices_shift() -> None:
    waypoints = build(0.0, 1.0, 2.0)
    waypoints, _ = waypoints.inserted(at(0.5), '', 1)
    assert ids(waypoints) == [1, 4, 2, 3]
    waypoints = waypoints.removed(0)
    assert ids(waypoints) == [4, 2, 3] and xs(waypoints) == [0.5, 1.0, 2.0]
    assert waypoints.index_of(3) == 2 and waypoints.index_of(1) is None
    waypoints, _ = waypoints.inserted(at(7.0), '', -1)
    assert ids(waypoints) == [4, 2, 3, 5], 'ids are never reused'
    waypoints = waypoints.removed(3).removed(2)
    waypoints, _ = waypoints.inserted(at(8.0), '', -1)
    assert ids(waypoints)[-1] == 6


@pytest.mark.parametrize('edit', [
    lambda w, p: w.moved(p, at(5.0)),
    lambda w, p: w.removed(p),
    lambda w, p: w.with_visited(p),
    lambda w, p: w.with_unreachable(p),
    lambda w, p: w.with_routine(p, 'Wait'),
])
def test_edits_refuse_bad_indices(edit) -> None:
    waypoints = build(0.0, 1.0)
    for position in (-1, 2, 100):
        expected = rf'position: {position} is out of range: valid indices are 0\.\.1'
        with pytest.raises(RequestError, match=expected):
            edit(waypoints, position)
    with pytest.raises(RequestError, match='the list is empty'):
        edit(WaypointList(), 0)


def test_edits_change_only_their_waypoint() -> None:
    waypoints = build(0.0, 1.0, 2.0)
    edited = waypoints.moved(1, Pose(4.0, 5.0, 6.0)).with_visited(0).with_unreachable(2)
    edited = edited.with_routine(1, 'Wait')
    assert [(w.pose.x, w.visited, w.unreachable, w.routine) for w in edited.waypoints] == [
        (0.0, True, False, ''), (4.0, False, False, 'Wait'), (2.0, False, True, '')]
    assert ids(edited) == ids(waypoints)
    assert not any(w.visited or w.unreachable for w in edited.reset().waypoints)


def test_following_mode_is_validated() -> None:
    waypoints = build(0.0)
    assert waypoints.with_mode(2, True).mode is FollowingMode.PATROL
    for bad in (3, 255, -1):
        with pytest.raises(RequestError, match=f'mode: {bad} is not a following mode'):
            waypoints.with_mode(bad, False)


def test_pose_validation_names_the_field_and_normalises() -> None:
    pose = checked_pose('pose', 1.0, 2.0, 3.0, 0.0, 0.0, 2.0, 2.0)
    assert pose.qz == pytest.approx(math.sqrt(0.5)) and pose.qw == pytest.approx(math.sqrt(0.5))
    with pytest.raises(RequestError, match=r'waypoint\.pose\.position\.y: must be finite'):
        checked_pose('waypoint.pose', 0.0, math.nan, 0.0, 0.0, 0.0, 0.0, 1.0)
    with pytest.raises(RequestError, match=r'pose\.orientation\.w: must be finite'):
        checked_pose('pose', 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, math.inf)
    with pytest.raises(RequestError, match=r'pose\.orientation: must be a non-zero quaternion'):
        checked_pose('pose', 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0)
    with pytest.raises(RequestError, match=r'pose\.orientation: must be a non-zero quaternion'):
        checked_pose('pose', 0.0, 0.0, 0.0, 1e308, 1e308, 1e308, 1e308)


def test_next_waypoint_is_lowest_or_highest_unvisited_and_reachable() -> None:
    waypoints = build(0.0, 1.0, 2.0, 3.0).with_visited(0).with_unreachable(3)
    assert waypoints.next_index() == 1
    assert next_waypoint_index(waypoints.waypoints, reverse=True) == 2
    assert next_waypoint_index(waypoints.with_visited(1).with_visited(2).waypoints, False) is None
    assert next_waypoint_index([], True) is None


def test_round_end_by_mode() -> None:
    assert [round_end(m) for m in (0, 1, 2)] == [
        RoundEnd.STOP, RoundEnd.RESTART, RoundEnd.TURN_AROUND]
    with pytest.raises(ValueError):
        round_end(-1)
    assert patrol_endpoint(5, reverse=False) == 4 and patrol_endpoint(5, reverse=True) == 0


def test_single_round_ends_and_roundtrip_resets() -> None:
    done = build(0.0, 1.0).with_visited(0).with_unreachable(1)
    assert done.finish_round() is None
    again = done.with_mode(FollowingMode.ROUNDTRIP, False).finish_round()
    assert again is not None and again.next_index() == 0
    assert not any(w.visited or w.unreachable for w in again.waypoints)
    backwards = done.with_mode(FollowingMode.ROUNDTRIP, True).finish_round()
    assert backwards is not None and backwards.next_index() == 1 and backwards.reverse


def test_patrol_goes_there_and_back_without_repeating_endpoints() -> None:
    """Patrol over 0..3 visits 0 1 2 3, 2 1 0, 1 2 3, 2 1 0 (RSM's endpoint pre-marking)."""
    waypoints = build(0.0, 1.0, 2.0, 3.0, mode=FollowingMode.PATROL)
    visits = []
    for _ in range(4 + 3 + 3 + 3):
        index = waypoints.next_index()
        if index is None:
            turned = waypoints.finish_round()
            assert turned is not None
            waypoints = turned
            index = waypoints.next_index()
        assert index is not None
        visits.append(index)
        waypoints = waypoints.with_visited(index)
    assert visits == [0, 1, 2, 3, 2, 1, 0, 1, 2, 3, 2, 1, 0]


def test_patrol_turn_marks_endpoint_visited_even_if_unreachable() -> None:
    waypoints = build(0.0, 1.0, 2.0, mode=FollowingMode.PATROL).with_visited(0).with_visited(1)
    turned = waypoints.with_unreachable(2).turned_around()
    assert turned.reverse
    assert [(w.visited, w.unreachable) for w in turned.waypoints] == [
        (False, False), (False, False), (True, False)]
    back = turned.turned_around()
    assert not back.reverse and [w.visited for w in back.waypoints] == [True, False, False]
    assert WaypointList(mode=FollowingMode.PATROL).turned_around().reverse
