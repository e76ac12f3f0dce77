"""ControllerContainer, ParallelController and SequentialController."""

import enum
from typing import Any, Dict, List, Optional, Tuple

import numpy as np
import pytest

from robot_sm_control import (
    Controller, ControllerContainer, JointState, ParallelController, RobotState, RootState,
    SequentialController, SpatialState)

SPACE = ['default', 'other']


class Choice(enum.Enum):
    DEFAULT = 0
    OTHER = 1
    FAILS = 2


class Recording(Controller):
    """Write ``value`` to all fields of joint ``joint``; record resets and kwargs."""

    def __init__(self, joint: str, value: float, reset_ok: bool = True) -> None:
        self.joint, self.value, self.reset_ok = joint, value, reset_ok
        self.resets: List[float] = []
        self.forwards = 0
        self.kwargs: dict = {}

    def reset(self, estimated_state: RobotState, setpoint_state: Optional[RobotState],
              t: float, **kwargs: Any) -> bool:
        self.resets.append(t)
        return self.reset_ok

    def forward(self, estimated_state: RobotState, setpoint_state: Optional[RobotState],
                t: float, **kwargs: Any) -> Optional[RobotState]:
        self.forwards += 1
        self.kwargs = kwargs
        field = ([self.joint], [self.value])
        return RobotState(joints=JointState.from_name(
            SPACE, positions=field, velocities=field, efforts=field))


class AddOne(Controller):
    """Add 1 to the setpoint's joint positions."""

    def reset(self, estimated_state: RobotState, setpoint_state: Optional[RobotState],
              t: float, **kwargs: Any) -> bool:
        return True

    def forward(self, estimated_state: RobotState, setpoint_state: Optional[RobotState],
                t: float, **kwargs: Any) -> Optional[RobotState]:
        assert setpoint_state is not None and setpoint_state.joints is not None
        joints = setpoint_state.joints
        return RobotState(joints=JointState.from_name(
            SPACE, positions=(joints.position_names, joints.positions + 1.0)))


class AlwaysFails(Recording):
    """Fail both reset and forward."""

    def __init__(self) -> None:
        super().__init__('default', 0.0, reset_ok=False)

    def forward(self, estimated_state: RobotState, setpoint_state: Optional[RobotState],
                t: float, **kwargs: Any) -> Optional[RobotState]:
        self.forwards += 1
        return None


class Fixed(Controller):
    """Return a fixed state."""

    def __init__(self, state: RobotState) -> None:
        self.state = state

    def reset(self, estimated_state: RobotState, setpoint_state: Optional[RobotState],
              t: float, **kwargs: Any) -> bool:
        return True

    def forward(self, estimated_state: RobotState, setpoint_state: Optional[RobotState],
                t: float, **kwargs: Any) -> Optional[RobotState]:
        return self.state


EMPTY = RobotState()


def make_container() -> Tuple[ControllerContainer, Dict[Choice, Any]]:
    """Return a container and its options, to look at what each of them was asked."""
    options: Dict[Choice, Any] = {Choice.DEFAULT: Recording('default', 0.0),
                                  Choice.OTHER: Recording('other', 1.0),
                                  Choice.FAILS: AlwaysFails()}
    return ControllerContainer(options, Choice.DEFAULT), options


def test_container_needs_options_and_a_known_initial_key() -> None:
    with pytest.raises(ValueError):
        ControllerContainer({}, Choice.DEFAULT)
    with pytest.raises(KeyError, match='OTHER'):
        ControllerContainer({Choice.DEFAULT: Recording('default', 0.0)}, Choice.OTHER)


def test_container_reset_resets_only_the_initial_controller() -> None:
    container, options = make_container()
    assert container.reset(EMPTY, None, 1.5)
    assert options[Choice.DEFAULT].resets == [1.5]
    assert options[Choice.OTHER].resets == []
    assert container.active is Choice.DEFAULT
    out = container.forward(EMPTY, None, 2.0)
    assert out is not None and out.joints is not None
    assert out.joints.position_names == ['default']


def test_switch_happens_on_next_forward_and_resets_the_new_controller() -> None:
    container, options = make_container()
    container.reset(EMPTY, None, 0.0)
    other = options[Choice.OTHER]
    container.set_next_controller(Choice.OTHER)
    assert container.active is Choice.DEFAULT
    assert other.resets == []
    out = container.forward(EMPTY, None, 3.0, gain=2)
    assert container.active is Choice.OTHER
    assert other.resets == [3.0] and other.kwargs == {'gain': 2}
    assert out is not None and out.joints is not None
    assert out.joints.position_names == ['other']
    np.testing.assert_array_equal(out.joints.positions, [1.0])
    container.forward(EMPTY, None, 4.0)
    assert other.resets == [3.0]  # no second reset while it stays active


def test_reset_cancels_a_pending_switch() -> None:
    container, options = make_container()
    container.set_next_controller(Choice.OTHER)
    container.reset(EMPTY, None, 0.0)
    container.forward(EMPTY, None, 0.1)
    assert container.active is Choice.DEFAULT
    assert options[Choice.OTHER].resets == []


def test_switch_to_a_controller_that_fails_to_reset_raises_and_never_runs_it() -> None:
    container, options = make_container()
    container.reset(EMPTY, None, 0.0)
    container.set_next_controller(Choice.FAILS)
    fails = options[Choice.FAILS]
    for t in (1.0, 2.0):
        with pytest.raises(RuntimeError, match='FAILS'):
            container.forward(EMPTY, None, t)
    assert container.active is Choice.FAILS
    assert fails.resets == [1.0, 2.0] and fails.forwards == 0
    container.set_next_controller(Choice.DEFAULT)
    assert container.forward(EMPTY, None, 3.0) is not None


def test_active_controller_failure_passes_through() -> None:
    container = ControllerContainer({Choice.FAILS: AlwaysFails()}, Choice.FAILS)
    assert container.forward(EMPTY, None, 0.0) is None


def test_unknown_keys_raise_lookup_error() -> None:
    container = ControllerContainer({Choice.DEFAULT: Recording('default', 0.0)}, Choice.DEFAULT)
    with pytest.raises(LookupError):
        container.set_next_controller(Choice.OTHER)


@pytest.mark.parametrize('composite', [ParallelController, SequentialController])
def test_composites_need_two_controllers(composite: type) -> None:
    with pytest.raises(ValueError):
        composite([])
    with pytest.raises(ValueError):
        composite([Recording('default', 0.0)])


def test_parallel_merges_children() -> None:
    parallel = ParallelController([Recording('default', 0.0), Recording('other', 1.0)])
    assert parallel.reset(EMPTY, None, 0.0)
    out = parallel.forward(EMPTY, None, 0.0)
    assert out is not None and out.joints is not None
    assert out.joints.position_names == ['default', 'other']
    np.testing.assert_array_equal(out.joints.positions, [0.0, 1.0])
    assert out.joints.velocity_names == ['default', 'other']


def test_parallel_fails_on_overlap() -> None:
    parallel = ParallelController([Recording('default', 0.0), Recording('default', 0.0)])
    assert parallel.forward(EMPTY, None, 0.0) is None


def test_parallel_stops_at_the_first_failure() -> None:
    first, fails, last = Recording('default', 0.0), AlwaysFails(), Recording('other', 1.0)
    parallel = ParallelController([first, fails, last])
    assert parallel.forward(EMPTY, None, 0.0) is None
    assert (first.forwards, fails.forwards, last.forwards) == (1, 1, 0)
    assert not parallel.reset(EMPTY, None, 0.0)
    assert (first.resets, fails.resets, last.resets) == ([0.0], [0.0], [])


def test_parallel_combines_root_link_and_site_controllers() -> None:
    parallel = ParallelController([
        Fixed(RobotState(root=RootState(position=[1, 2, 3]))),
        Fixed(RobotState(links=SpatialState.from_name(['link_a'], positions=(['link_a'],
                                                                             [[0, 0, 1]])))),
        Fixed(RobotState(sites=SpatialState.from_name(['site_a'], positions=(['site_a'],
                                                                             [[0, 1, 0]])))),
    ])
    out = parallel.forward(EMPTY, None, 0.0)
    assert out is not None and out.root is not None and out.links is not None
    assert out.sites is not None
    np.testing.assert_array_equal(out.root.position, [1, 2, 3])
    assert out.links.position_names == ['link_a'] and out.sites.position_names == ['site_a']


def test_sequential_feeds_each_output_to_the_next() -> None:
    assert SequentialController([Recording('default', 0.0), AddOne()]).forward(
        EMPTY, None, 0.0).joints.positions.tolist() == [1.0]
    chain = SequentialController([Recording('default', 0.0), AddOne(), AddOne(), AddOne()])
    out = chain.forward(EMPTY, None, 0.0)
    assert out is not None and out.joints is not None
    np.testing.assert_array_equal(out.joints.positions, [3.0])
    assert out.joints.velocities is None  # outputs are passed on, not merged


def test_sequential_stops_at_the_first_failure() -> None:
    first, fails, last = Recording('default', 0.0), AlwaysFails(), Recording('other', 1.0)
    chain = SequentialController([first, fails, last])
    assert chain.forward(EMPTY, None, 0.0) is None
    assert last.forwards == 0
    assert not chain.reset(EMPTY, None, 0.0)
    assert last.resets == []


def test_composites_nest() -> None:
    inner = SequentialController([Recording('default', 0.0), AddOne()])
    nested = ControllerContainer({Choice.DEFAULT: ParallelController(
        [inner, Fixed(RobotState(root=RootState(linear_velocity=[1, 0, 0])))])}, Choice.DEFAULT)
    assert nested.reset(EMPTY, None, 0.0)
    out = nested.forward(EMPTY, None, 0.0)
    assert out is not None and out.joints is not None and out.root is not None
    np.testing.assert_array_equal(out.joints.positions, [1.0])
