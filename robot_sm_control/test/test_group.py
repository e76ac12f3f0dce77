"""The batched controller group: against single controllers, membership, enable, state."""

import numpy as np
import pytest

from robot_sm_control import (
    CommandController, ControllerGroup, ControlLimits, JOINT_POSITION, JOINT_VELOCITY, JointLaw)

INF = np.inf
DOFS = 4


def limits() -> ControlLimits:
    return ControlLimits(position=([-1.0, -2.0, -INF, -3.0], [1.0, 2.0, INF, 3.0]),
                         velocity=([-1.0] * DOFS, [1.0] * DOFS),
                         effort=([-1.0] * DOFS, [1.0] * DOFS),
                         has_limit=[True, True, False, True])


def arm_law() -> JointLaw:
    return JointLaw(limits(), [0, 1, 2], 'position', use_delta_commands=True)


def states(rows: int, rng: np.random.Generator) -> dict:
    return {JOINT_POSITION: rng.uniform(-3, 3, (rows, DOFS)),
            JOINT_VELOCITY: rng.uniform(-1, 1, (rows, DOFS))}


def row(batch: dict, index: int) -> dict:
    return {key: values[index] for key, values in batch.items()}


def test_group_matches_single_controllers_step_for_step() -> None:
    rng = np.random.default_rng(7)
    members = 25
    group = ControllerGroup(arm_law(), command_output_limits=(-0.2, 0.2))
    singles = [CommandController(arm_law(), command_output_limits=(-0.2, 0.2))
               for _ in range(members)]
    assert [group.add_member() for _ in range(members)] == list(range(members))
    for tick in range(6):
        batch = states(members, rng)
        if tick % 2 == 0:  # goals every other tick; sticky in between; none at tick 0 for some
            chosen = [i for i in range(members) if tick > 0 or i % 3 == 0]
            commands = rng.uniform(-2, 2, (len(chosen), 3))
            group.update_goals(chosen, commands, {k: v[chosen] for k, v in batch.items()})
            for i, command in zip(chosen, commands):
                singles[i].update_goal(command, row(batch, i))
        result = group.step(batch)
        assert result.written.all() and not result.rejected.any()
        expected = np.array([single.step(row(batch, i)) for i, single in enumerate(singles)])
        np.testing.assert_allclose(result.controls, expected, rtol=0, atol=1e-12)
    for i in (0, 1, 24):
        np.testing.assert_allclose(group.get_goal(i)['target'], singles[i].goal['target'])


def test_tombstoned_slot_is_reused_and_cleared() -> None:
    group = ControllerGroup(arm_law(), None, None, capacity=1)
    first, second = group.add_member(), group.add_member()
    assert (first, second) == (0, 1) and group.n_members == 2
    group.update_goal(0, [0.1, 0.1, 0.1], {JOINT_POSITION: np.zeros(DOFS)})
    group.unregister_member(0)
    assert not group.is_registered(0) and group.is_registered(1)
    with pytest.raises(LookupError):
        group.update_goal(0, [0.1, 0.1, 0.1], {JOINT_POSITION: np.zeros(DOFS)})
    with pytest.raises(LookupError):
        group.unregister_member(0)
    assert group.add_member() == 0  # the tombstone comes back, cleared
    assert group.get_goal(0) is None and group.get_control(0) is None
    assert group.add_member() == 2
    group.unregister_member(2)
    group.unregister_member(0)
    assert group.add_member() == 0  # lowest tombstone first
    with pytest.raises(IndexError):
        group.set_control_enabled(7, False)


def test_tombstoned_and_disabled_members_are_not_written() -> None:
    group = ControllerGroup(arm_law(), None, None)
    for _ in range(3):
        group.add_member()
    zeros = {JOINT_POSITION: np.zeros((3, DOFS))}
    group.update_goals([0, 1, 2], np.full((3, 3), 0.5), zeros)
    group.step(zeros)
    group.unregister_member(2)
    group.set_control_enabled(1, False)
    group.update_goals([0, 1], np.full((2, 3), 0.2), zeros | {JOINT_POSITION: np.ones((2, DOFS))})
    filler = np.zeros((3, DOFS))
    filler[1:] = np.nan  # rows of disabled and tombstoned members are ignored
    result = group.step({JOINT_POSITION: filler})
    assert result.written.tolist() == [True, False, False] and not result.rejected.any()
    np.testing.assert_allclose(result.controls[0], [1.0, 1.2, 1.2])  # member 0 moved
    np.testing.assert_allclose(result.controls[1], [0.5, 0.5, 0.5])  # disabled: unchanged
    np.testing.assert_allclose(group.get_goal(1)['target'], [1.0, 1.2, 1.2])  # goal kept
    group.set_control_enabled(1, True)
    np.testing.assert_allclose(group.step(zeros).controls[1], [1.0, 1.2, 1.2])


def test_a_member_whose_control_is_not_finite_is_refused_alone() -> None:
    group = ControllerGroup(JointLaw(limits(), [0, 1], 'position'), None, None)
    group.add_member()
    group.add_member()
    positions = np.array([[np.nan, 0.0, 0, 0], [0.3, 0.4, 0, 0]])
    result = group.step({JOINT_POSITION: positions})
    assert result.rejected.tolist() == [True, False]
    assert result.written.tolist() == [False, True]
    assert group.get_control(0) is None and group.get_goal(0) is None
    np.testing.assert_allclose(result.controls[1], [0.3, 0.4])
    positions[0, 0] = 0.5
    np.testing.assert_allclose(group.step({JOINT_POSITION: positions}).controls[0], [0.5, 0.0])


def test_step_with_no_active_enabled_member_computes_nothing() -> None:
    group = ControllerGroup(arm_law(), None, None)
    index = group.add_member(control_enabled=False)
    result = group.step({JOINT_POSITION: np.zeros((1, DOFS))})
    assert not result.written.any() and group.get_goal(index) is None
    with pytest.raises(ValueError, match='rows'):
        group.step({JOINT_POSITION: np.zeros((2, DOFS))})


def test_missing_goals_get_the_no_op_goal_and_stay_sticky_until_reset() -> None:
    group = ControllerGroup(JointLaw(limits(), [0, 1], 'position'), None, None)
    group.add_member()
    np.testing.assert_allclose(
        group.step({JOINT_POSITION: np.array([[0.3, 0.4, 0, 0]])}).controls[0], [0.3, 0.4])
    np.testing.assert_allclose(
        group.step({JOINT_POSITION: np.array([[0.0, 0.0, 0, 0]])}).controls[0], [0.3, 0.4])
    group.reset(0)
    np.testing.assert_allclose(
        group.step({JOINT_POSITION: np.array([[0.1, 0.2, 0, 0]])}).controls[0], [0.1, 0.2])
    group.unregister_member(0)
    group.reset(0)  # no-op on a tombstone
    assert not group.is_registered(0)


def test_update_goals_is_all_or_nothing() -> None:
    group = ControllerGroup(arm_law(), None, None)
    group.add_member()
    group.add_member()
    zeros = {JOINT_POSITION: np.zeros((2, DOFS))}
    with pytest.raises(ValueError, match='repeated'):
        group.update_goals([0, 0], np.zeros((2, 3)), zeros)
    with pytest.raises(IndexError, match=r'\[2\]'):
        group.update_goals([0, 2], np.zeros((2, 3)), zeros)
    with pytest.raises(IndexError):
        group.update_goals([0.0, 1.0], np.zeros((2, 3)), zeros)
    with pytest.raises(ValueError, match='rows'):
        group.update_goals([0, 1], np.zeros((1, 3)), zeros)
    with pytest.raises(ValueError, match=r'members \[1\]'):
        group.update_goals([0, 1], np.zeros((2, 3)),
                           {JOINT_POSITION: np.array([[0.0] * DOFS, [np.nan] * DOFS])})
    with pytest.raises(ValueError, match='finite'):
        group.update_goal(0, [np.inf, 0, 0], {JOINT_POSITION: np.zeros(DOFS)})
    assert group.get_goal(0) is None and group.get_goal(1) is None
    group.unregister_member(1)
    with pytest.raises(LookupError, match=r'\[1\] are unregistered'):
        group.update_goals([0, 1], np.zeros((2, 3)), zeros)
