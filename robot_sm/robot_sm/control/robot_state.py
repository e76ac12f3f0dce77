"""
The whole desired or estimated state of a robot: joints, root, links and sites, each optional.

A controller fills in only the parts it controls; :func:`robot_sm.control.combine_robot_states`
merges the outputs of controllers that control different parts. ``RobotState()`` with nothing set
is valid and is the identity of that merge.
"""

from typing import Any, Optional

from robot_sm.control.joint_state import JointState
from robot_sm.control.root_state import RootState
from robot_sm.control.spatial_state import SpatialState


def _checked(value: Any, expected: type, name: str) -> Any:
    if value is not None and not isinstance(value, expected):
        raise ValueError(f'RobotState {name}: must be a {expected.__name__} or None, '
                         f'got {type(value).__name__}')
    return value


class RobotState:
    """Joint, root, link and site states of one robot; any of them may be None (read-only)."""

    __slots__ = ('_joints', '_root', '_links', '_sites')

    def __init__(self, joints: Optional[JointState] = None, root: Optional[RootState] = None,
                 links: Optional[SpatialState] = None,
                 sites: Optional[SpatialState] = None) -> None:
        """
        Group the parts of a robot state.

        :raises ValueError: if a part is not of its type.
        """
        self._joints: Optional[JointState] = _checked(joints, JointState, 'joints')
        self._root: Optional[RootState] = _checked(root, RootState, 'root')
        self._links: Optional[SpatialState] = _checked(links, SpatialState, 'links')
        self._sites: Optional[SpatialState] = _checked(sites, SpatialState, 'sites')

    @property
    def joints(self) -> Optional[JointState]:
        """Joint-space state, or None."""
        return self._joints

    @property
    def root(self) -> Optional[RootState]:
        """Root state, or None."""
        return self._root

    @property
    def links(self) -> Optional[SpatialState]:
        """Link-space state, or None."""
        return self._links

    @property
    def sites(self) -> Optional[SpatialState]:
        """Site-space state, or None."""
        return self._sites

    def __repr__(self) -> str:
        parts = [f'{name}={value!r}' for name, value in (
            ('joints', self._joints), ('root', self._root), ('links', self._links),
            ('sites', self._sites)) if value is not None]
        return f"RobotState({', '.join(parts)})"
