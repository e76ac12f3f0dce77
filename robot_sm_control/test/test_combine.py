"""combine_robot_states: every way two states can or cannot be merged."""

import numpy as np
import pytest

from robot_sm_control import combine_robot_states, JointState, RobotState, RootState, SpatialState

SPACE = ['a', 'b', 'c']
FRAMES = ['link_a', 'link_b']


def joints(**fields: tuple) -> RobotState:
    return RobotState(joints=JointState.from_name(SPACE, **fields))


def frames(part: str, **fields: tuple) -> RobotState:
    return RobotState(**{part: SpatialState.from_name(FRAMES, **fields)})


def test_none_input_gives_none() -> None:
    assert combine_robot_states(None, RobotState()) is None
    assert combine_robot_states(RobotState(), None) is None


def test_empty_state_is_the_identity_and_keeps_the_object() -> None:
    state = joints(positions=(['a'], [1.0]))
    combined = combine_robot_states(RobotState(), state)
    assert combined is not None and combined.joints is state.joints
    combined = combine_robot_states(state, RobotState())
    assert combined is not None and combined.joints is state.joints


def test_disjoint_joints_merge() -> None:
    combined = combine_robot_states(joints(positions=(['a'], [1.0])),
                                    joints(positions=(['c'], [3.0]), velocities=(['a'], [9.0])))
    assert combined is not None and combined.joints is not None
    assert combined.joints.position_names == ['a', 'c']
    np.testing.assert_array_equal(combined.joints.positions, [1.0, 3.0])
    np.testing.assert_array_equal(combined.joints.velocities, [9.0])


def test_same_joint_different_fields_merge() -> None:
    combined = combine_robot_states(joints(positions=(['b'], [1.0])),
                                    joints(velocities=(['b'], [2.0])))
    assert combined is not None and combined.joints is not None
    assert combined.joints.position_names == combined.joints.velocity_names == ['b']


def test_same_joint_same_field_fails() -> None:
    assert combine_robot_states(joints(positions=(['a'], [1.0])),
                                joints(positions=(['a'], [1.0]))) is None


def test_partial_overlap_fails() -> None:
    a = joints(positions=(['a'], [1.0]), velocities=(['a'], [1.0]))
    b = joints(positions=(['a'], [1.0]), efforts=(['a'], [1.0]))
    assert combine_robot_states(a, b) is None


def test_joint_spaces_must_match_in_order() -> None:
    a = joints(positions=(['a'], [1.0]))
    reordered = RobotState(joints=JointState.from_name(['c', 'b', 'a'], positions=(['c'], [0.0])))
    other = RobotState(joints=JointState.from_name(['x'], positions=(['x'], [0.0])))
    assert combine_robot_states(a, reordered) is None
    assert combine_robot_states(a, other) is None


def test_root_fields_merge_unless_both_set_one() -> None:
    a = RobotState(root=RootState(position=[1, 2, 3]))
    b = RobotState(root=RootState(linear_velocity=[1, 0, 0]))
    combined = combine_robot_states(a, b)
    assert combined is not None and combined.root is not None
    np.testing.assert_array_equal(combined.root.position, [1, 2, 3])
    np.testing.assert_array_equal(combined.root.linear_velocity, [1, 0, 0])
    assert combined.root.orientation is None
    clash = RobotState(root=RootState(position=[0, 0, 0], orientation=[1, 0, 0, 0]))
    assert combine_robot_states(a, clash) is None


@pytest.mark.parametrize('part', ['links', 'sites'])
def test_spatial_parts_merge_disjoint_fields_and_frames(part: str) -> None:
    a = frames(part, positions=(['link_a'], [[1, 2, 3]]))
    b = frames(part, orientations=(['link_a'], [[0, 1, 0, 0]]),
               linear_velocities=(['link_b'], [[1, 0, 0]]))
    combined = combine_robot_states(a, b)
    assert combined is not None
    merged = getattr(combined, part)
    np.testing.assert_array_equal(merged.positions, [[1, 2, 3]])
    np.testing.assert_array_equal(merged.orientations, [[0, 1, 0, 0]])
    assert merged.linear_velocity_names == ['link_b']


@pytest.mark.parametrize('part', ['links', 'sites'])
def test_spatial_parts_fail_on_overlap_or_other_space(part: str) -> None:
    a = frames(part, positions=(['link_a'], [[1, 2, 3]]))
    assert combine_robot_states(a, frames(part, positions=(['link_a'], [[0, 0, 0]]))) is None
    other = RobotState(**{part: SpatialState.from_name(
        list(reversed(FRAMES)), positions=(['link_b'], [[0, 0, 0]]))})
    assert combine_robot_states(a, other) is None


def test_links_and_sites_do_not_collide_with_each_other() -> None:
    links = frames('links', positions=(['link_a'], [[1, 2, 3]]))
    sites = frames('sites', positions=(['link_a'], [[1, 2, 3]]))
    combined = combine_robot_states(links, sites)
    assert combined is not None and combined.links is links.links and combined.sites is sites.sites


def test_a_failure_in_one_part_fails_the_whole_merge() -> None:
    a = RobotState(joints=JointState.from_name(SPACE, positions=(['a'], [1.0])),
                   root=RootState(position=[0, 0, 0]))
    b = RobotState(joints=JointState.from_name(SPACE, positions=(['b'], [1.0])),
                   root=RootState(position=[1, 1, 1]))
    assert combine_robot_states(a, b) is None
