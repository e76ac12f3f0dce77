"""
Merge the outputs of controllers that control different parts of a robot.

:func:`combine_robot_states` succeeds only when the two states never set the same thing: no
(field, joint) pair, (field, frame) pair or root field may be defined by both, and joint, link
and site states must live in identical control spaces (same names in the same order). Anything
else returns None, so a parallel composition can never silently let one controller overwrite
another.
"""

from typing import Callable, Optional, TypeVar

import numpy as np

from robot_sm.control.joint_state import JointState
from robot_sm.control.robot_state import RobotState
from robot_sm.control.root_state import RootState
from robot_sm.control.spatial_state import SpatialState

PartT = TypeVar('PartT')


class _Conflict(Exception):
    """The two parts cannot be merged."""


def _merge_joints(a: JointState, b: JointState) -> JointState:
    if a.space != b.space:
        raise _Conflict()
    valid_a, valid_b = a.valid_array, b.valid_array
    if (valid_a & valid_b).any():
        raise _Conflict()
    return JointState.trusted(a.space, np.where(valid_a, a.data_array, b.data_array),
                              valid_a | valid_b)


def _merge_spatial(a: SpatialState, b: SpatialState) -> SpatialState:
    if a.space != b.space:
        raise _Conflict()
    valid_a, valid_b = a.valid_array, b.valid_array
    if (valid_a & valid_b).any():
        raise _Conflict()
    fa, fb = a.field_arrays, b.field_arrays
    merged = tuple(np.where(valid_a[:, column, None], fa[column], fb[column])
                   for column in range(4))
    return SpatialState.trusted(a.space, (merged[0], merged[1], merged[2], merged[3]),
                                valid_a | valid_b)


def _merge_root(a: RootState, b: RootState) -> RootState:
    if any(x is not None and y is not None for x, y in zip(a.fields, b.fields)):
        raise _Conflict()
    return RootState.trusted(tuple(x if x is not None else y for x, y in zip(a.fields, b.fields)))


def _merge(a: Optional[PartT], b: Optional[PartT],
           merge: Callable[[PartT, PartT], PartT]) -> Optional[PartT]:
    if a is None:
        return b
    if b is None:
        return a
    return merge(a, b)


def combine_robot_states(a: Optional[RobotState],
                         b: Optional[RobotState]) -> Optional[RobotState]:
    """
    Return the union of two robot states, or None if they cannot be combined.

    None is returned when either argument is None, when joint, link or site spaces differ
    (including the same names in another order), or when both define the same field of the same
    joint, frame or root. The same joint (or frame) may get different fields from each side. A
    part defined by one side only is taken as is (the same object); ``RobotState()`` is the
    identity.
    """
    if a is None or b is None:
        return None
    try:
        return RobotState(
            joints=_merge(a.joints, b.joints, _merge_joints),
            root=_merge(a.root, b.root, _merge_root),
            sites=_merge(a.sites, b.sites, _merge_spatial),
            links=_merge(a.links, b.links, _merge_spatial),
        )
    except _Conflict:
        return None
