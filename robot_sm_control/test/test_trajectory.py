"""Paths, minimal-time joint trajectories and the trajectory follower."""

import math

import numpy as np
import pytest

from robot_sm_control import MinimalTimeJointTrajectory, Path, RobotState, TrajectoryFollower

EMPTY = RobotState()


def example_trajectory() -> MinimalTimeJointTrajectory:
    return Path([[0.0], [1.0], [2.0]]).to_minimal_time_joint_trajectory(
        [0.5], [0.1], ['j'], ['j'])


def test_reference_example_duration_and_endpoints() -> None:
    trajectory = example_trajectory()
    assert trajectory.duration == pytest.approx(12.6491, abs=1e-4)
    np.testing.assert_allclose(trajectory.segment_durations, [2 * math.sqrt(10)] * 2)
    start = trajectory.get_target_state(0.0).joints
    end = trajectory.get_target_state(trajectory.duration).joints
    np.testing.assert_allclose(start.positions, [0.0])
    np.testing.assert_allclose(start.velocities, [0.0])
    np.testing.assert_allclose(end.positions, [2.0])
    np.testing.assert_allclose(end.velocities, [0.0], atol=1e-12)
    assert end.efforts is None


def test_triangular_profile_peaks_at_mid_segment() -> None:
    trajectory = example_trajectory()
    half = math.sqrt(10)
    position, velocity = trajectory.sample(half)
    assert position[0] == pytest.approx(0.5)
    assert velocity[0] == pytest.approx(0.1 * half)  # a * t, below the 0.5 limit
    position, velocity = trajectory.sample(2 * half)
    assert position[0] == pytest.approx(1.0) and velocity[0] == pytest.approx(0.0, abs=1e-12)


def test_trapezoid_segment() -> None:
    trajectory = Path([[0.0], [1.0]]).to_minimal_time_joint_trajectory([0.5], [1.0], ['j'], ['j'])
    assert trajectory.duration == pytest.approx(2.5)
    _, velocity = trajectory.sample(1.25)
    assert velocity[0] == pytest.approx(0.5)  # coasting at the speed limit
    position, _ = trajectory.sample(0.5)
    assert position[0] == pytest.approx(0.125)  # end of the acceleration ramp: a t^2 / 2


def test_joints_move_together_and_respect_their_limits() -> None:
    waypoints = [[0.0, 0.0, 0.0], [1.0, -2.0, 0.5], [0.0, 1.0, 0.5]]
    v_max, a_max = np.array([1.0, 0.8, 2.0]), np.array([2.0, 1.0, 3.0])
    trajectory = Path(waypoints).to_minimal_time_joint_trajectory(
        v_max, a_max, ['x', 'a', 'b', 'c'], ['a', 'b', 'c'])
    times = np.linspace(0.0, trajectory.duration, 2001)
    samples = [trajectory.sample(t) for t in times]
    positions = np.array([p for p, _ in samples])
    velocities = np.array([v for _, v in samples])
    assert (np.abs(velocities) <= v_max + 1e-9).all()
    accelerations = np.diff(velocities, axis=0) / np.diff(times)[:, None]
    assert (np.abs(accelerations) <= a_max * 1.01).all()
    # On a segment the path stays on the straight line between its waypoints.
    first = trajectory.segment_durations[0]
    progress = positions[times <= first] / np.array(waypoints[1])
    np.testing.assert_allclose(progress[:, 0], progress[:, 1], atol=1e-9)
    state = trajectory.get_target_state(first).joints
    assert state.position_names == ['a', 'b', 'c']
    np.testing.assert_allclose(state.positions, waypoints[1])
    np.testing.assert_allclose(positions[-1], waypoints[-1])


def test_sampling_clamps_time() -> None:
    trajectory = example_trajectory()
    np.testing.assert_allclose(trajectory.sample(-5.0)[0], [0.0])
    np.testing.assert_allclose(trajectory.sample(100.0)[0], [2.0])
    with pytest.raises(ValueError):
        trajectory.sample(float('nan'))


@pytest.mark.parametrize('args, message', [
    (([[0.0], [1.0]], [[0.5], [0.5]], [0.1]), 'one-dimensional'),
    (([[0.0], [1.0]], [0.5, 0.5], [0.1]), '1 elements'),
    (([[0.0], [1.0]], [0.0], [0.1]), 'max_velocities'),
    (([[0.0], [1.0]], [0.5], [-1.0]), 'max_accelerations'),
    (([[0.0]], [0.5], [0.1]), 'at least 2'),
    (([[0.0], [0.0]], [0.5], [0.1]), 'equal within'),
    (([[0.0], [1.0], [1.0 + 1e-12]], [0.5], [0.1]), 'waypoints 1 and 2'),
])
def test_minimal_time_trajectory_rejects_bad_input(args: tuple, message: str) -> None:
    waypoints, v_max, a_max = args
    with pytest.raises(ValueError, match=message):
        Path(waypoints).to_minimal_time_joint_trajectory(v_max, a_max, ['j'], ['j'])


def test_minimal_time_trajectory_checks_joints_and_tolerances() -> None:
    path = Path([[0.0], [1.0]])
    with pytest.raises(ValueError, match='active_joints'):
        path.to_minimal_time_joint_trajectory([1.0], [1.0], ['j', 'k'], ['j', 'k'])
    with pytest.raises(ValueError, match='not in the control space'):
        path.to_minimal_time_joint_trajectory([1.0], [1.0], ['j'], ['k'])
    with pytest.raises(ValueError, match='tol'):
        path.to_minimal_time_joint_trajectory([1.0], [1.0], ['j'], ['j'], rel_tol=0.0)


def test_path_accessors() -> None:
    path = Path([[0.0, 1.0], [2.0, 3.0]])
    np.testing.assert_array_equal(path.waypoints, [[0.0, 1.0], [2.0, 3.0]])
    with pytest.raises(ValueError, match='read-only'):
        path.waypoints[0, 0] = 5.0
    with pytest.raises(ValueError, match='2-D'):
        Path([0.0, 1.0])
    with pytest.raises(ValueError, match='finite'):
        Path([[0.0], [np.inf]])


def test_follower_needs_a_trajectory_and_a_reset() -> None:
    follower = TrajectoryFollower()
    assert not follower.reset(EMPTY, None, 0.0)
    assert follower.forward(EMPTY, None, 0.0) is None
    follower.set_trajectory(example_trajectory())
    assert follower.forward(EMPTY, None, 0.0) is None  # not reset yet
    assert follower.reset(EMPTY, None, 0.0)  # still there


def test_follower_plays_from_the_reset_time_inclusive_of_both_ends() -> None:
    trajectory = example_trajectory()
    follower = TrajectoryFollower()
    follower.set_trajectory(trajectory)
    assert follower.reset(EMPTY, None, 1.0)
    start = follower.forward(EMPTY, None, 1.0)
    assert start is not None and start.joints.positions[0] == pytest.approx(0.0)
    end = follower.forward(EMPTY, None, 1.0 + trajectory.duration)
    assert end is not None and end.joints.positions[0] == pytest.approx(2.0)
    assert follower.reset(EMPTY, None, 20.0)  # still there


@pytest.mark.parametrize('offset', [-0.01, 0.01])
def test_follower_drops_the_trajectory_outside_its_span(offset: float) -> None:
    trajectory = example_trajectory()
    follower = TrajectoryFollower()
    follower.set_trajectory(trajectory)
    follower.reset(EMPTY, None, 1.0)
    t = 1.0 + offset if offset < 0 else 1.0 + trajectory.duration + offset
    assert follower.forward(EMPTY, None, t) is None
    assert follower.forward(EMPTY, None, 2.0) is None  # does not resume
    assert not follower.reset(EMPTY, None, 2.0)


def test_setting_a_trajectory_requires_a_new_reset() -> None:
    follower = TrajectoryFollower()
    follower.set_trajectory(example_trajectory())
    follower.reset(EMPTY, None, 0.0)
    follower.set_trajectory(example_trajectory())
    assert follower.forward(EMPTY, None, 1.0) is None
    with pytest.raises(ValueError):
        follower.set_trajectory('not a trajectory')
