"""Control spaces and states: construction rules, ordering by space, read-only access."""

import numpy as np
import pytest

from robot_sm_control import JointState, RobotState, RootState, SpatialState

SPACE = ['j0', 'j1', 'j2']


def test_joint_fields_come_back_in_joint_space_order() -> None:
    state = JointState.from_name(SPACE, positions=(['j2', 'j0', 'j1'], [2.0, 0.0, 1.0]))
    assert state.position_names == ['j0', 'j1', 'j2']
    np.testing.assert_array_equal(state.positions, [0.0, 1.0, 2.0])
    assert state.velocities is None and state.velocity_names is None
    assert state.efforts is None and state.effort_names is None


def test_partial_joint_state_mixes_fields_per_joint() -> None:
    state = JointState.from_name(SPACE, positions=(['j2'], [0.5]),
                                 velocities=(['j0', 'j2'], [1.0, 3.0]))
    assert state.position_names == ['j2']
    assert state.velocity_names == ['j0', 'j2']
    np.testing.assert_array_equal(state.velocities, [1.0, 3.0])
    np.testing.assert_array_equal(state.valid_array, [[False, False, True],
                                                      [True, False, True],
                                                      [False, False, False]])
    assert state.space == tuple(SPACE)


def test_joint_values_accept_a_1_by_n_array_and_ints() -> None:
    state = JointState.from_name(SPACE, efforts=(['j1', 'j0'], np.array([[4, 3]])))
    np.testing.assert_array_equal(state.efforts, [3.0, 4.0])


@pytest.mark.parametrize('kwargs, message', [
    ({}, 'at least one'),
    ({'positions': (['j0'], [1.0, 2.0])}, '1 names or indices but 2 values'),
    ({'positions': (['nope'], [1.0])}, 'not in the control space'),
    ({'positions': (['j0', 'j0'], [1.0, 2.0])}, 'duplicate'),
    ({'positions': ('j0', [1.0])}, 'list of names'),
    ({'positions': ([], [])}, 'must not be empty'),
    ({'positions': (['j0'], [[1.0], [2.0]])}, 'one-dimensional'),
    ({'positions': (['j0'], ['a'])}, 'real numbers'),
    ({'positions': (['j0'], [True])}, 'real numbers'),
    ({'positions': (['j0'], [float('nan')])}, 'finite'),
    ({'velocities': (['j0'], [float('inf')])}, 'finite'),
    ({'positions': [1.0]}, 'pair'),
])
def test_from_name_rejects_bad_input(kwargs: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        JointState.from_name(SPACE, **kwargs)


@pytest.mark.parametrize('space, message', [
    (['a', 'a'], 'duplicate'), ([], 'at least one'), ('abc', 'list of names'), ([1, 2], 'string'),
])
def test_joint_space_must_be_unique_names(space: object, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        JointState.from_name(space, positions=(['a'], [0.0]))


def test_direct_constructor_checks_shapes_and_masks_invalid_cells() -> None:
    data = np.arange(9.0).reshape(3, 3)
    valid = np.zeros((3, 3), dtype=bool)
    valid[1, 2] = True
    state = JointState(SPACE, data, valid)
    np.testing.assert_array_equal(state.velocities, [5.0])
    assert state.data_array[0, 0] == 0.0  # invalid cells are not kept
    with pytest.raises(ValueError, match='shape'):
        JointState(SPACE, np.zeros((3, 2)), np.zeros((3, 2), dtype=bool))
    with pytest.raises(ValueError, match='bool'):
        JointState(SPACE, data, np.zeros((3, 3)))
    nan = data.copy()
    nan[1, 2] = np.nan
    with pytest.raises(ValueError, match='finite'):
        JointState(SPACE, nan, valid)


def test_states_are_read_only() -> None:
    state = JointState.from_name(SPACE, positions=(['j0'], [1.0]))
    with pytest.raises(AttributeError):
        state.positions = np.zeros(1)
    with pytest.raises(ValueError):
        state.data_array[0, 0] = 5.0
    with pytest.raises(ValueError):
        state.positions[0] = 5.0
    assert state.space == tuple(SPACE)  # a tuple: nobody can append to it
    root = RootState(position=[1, 2, 3])
    with pytest.raises(AttributeError):
        root.position = np.zeros(3)
    with pytest.raises(ValueError):
        root.position[0] = 9.0


def test_spatial_state_orders_frames_and_checks_widths() -> None:
    frames = ['base', 'tool', 'camera']
    state = SpatialState.from_name(
        frames, positions=(['tool', 'base'], [[1, 1, 1], [0, 0, 0]]),
        orientations=(['camera'], [[1, 0, 0, 0]]))
    assert state.position_names == ['base', 'tool']
    np.testing.assert_array_equal(state.positions, [[0, 0, 0], [1, 1, 1]])
    assert state.orientation_names == ['camera']
    assert state.linear_velocities is None and state.angular_velocity_names is None
    with pytest.raises(ValueError, match=r'\(m, 4\)'):
        SpatialState.from_name(frames, orientations=(['tool'], [[1, 0, 0]]))
    with pytest.raises(ValueError, match=r'\(m, 3\)'):
        SpatialState.from_name(frames, positions=(['tool'], [1, 0, 0]))
    with pytest.raises(ValueError, match='at least one'):
        SpatialState.from_name(frames)
    by_name = SpatialState.from_name(frames, angular_velocities=(['camera'], [[0, 0, 1]]))
    assert by_name.angular_velocity_names == ['camera']


def test_root_state_needs_a_field_of_the_right_length() -> None:
    root = RootState(orientation=[1, 0, 0, 0], angular_velocity=[0, 0, 1])
    np.testing.assert_array_equal(root.orientation, [1, 0, 0, 0])
    assert root.position is None and root.linear_velocity is None
    with pytest.raises(ValueError, match='at least one'):
        RootState()
    with pytest.raises(ValueError, match='4 elements'):
        RootState(orientation=[0, 0, 1])
    with pytest.raises(ValueError, match='finite'):
        RootState(linear_velocity=[np.nan, 0, 0])


def test_root_state_copies_its_input() -> None:
    source = np.array([1.0, 2.0, 3.0])
    root = RootState(position=source)
    source[0] = 99.0
    assert root.position is not None and root.position[0] == 1.0


def test_robot_state_type_checks_and_may_be_empty() -> None:
    empty = RobotState()
    assert (empty.joints, empty.root, empty.links, empty.sites) == (None, None, None, None)
    with pytest.raises(ValueError, match='joints'):
        RobotState(joints=RootState(position=[0, 0, 0]))
    with pytest.raises(ValueError, match='sites'):
        RobotState(sites=JointState.from_name(SPACE, positions=(['j0'], [0.0])))
