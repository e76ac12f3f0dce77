"""
Controller groups by key, so that robots with the same configuration share one batched group.

The key says which robots may share a group (for example ``'arm/franka/ik-delta'``: body part,
robot model and a hash of the controller configuration). :meth:`GroupRegistry.register` creates
the group on first use; :meth:`GroupRegistry.unregister` tombstones a member and drops the group
once none of its members is left.
"""

from typing import Callable, Dict, Hashable, Iterator, Mapping, Tuple

from robot_sm.control.control_law import States
from robot_sm.control.controller_group import ControllerGroup, GroupControl


class GroupRegistry:
    """The controller groups of a fleet, by key."""

    def __init__(self) -> None:
        """Start with no groups."""
        self._groups: Dict[Hashable, ControllerGroup] = {}

    def register(self, key: Hashable, make_group: Callable[[], ControllerGroup],
                 control_enabled: bool = True) -> Tuple[ControllerGroup, int]:
        """Add a member to the group ``key`` (made by ``make_group`` if new); return both."""
        group = self._groups.get(key)
        if group is None:
            group = self._groups[key] = make_group()
        return group, group.add_member(control_enabled)

    def unregister(self, key: Hashable, index: int) -> None:
        """
        Tombstone member ``index`` of group ``key``; drop the group when it has none left.

        :raises LookupError: for an unknown key or unregistered member; IndexError for a bad
            index.
        """
        group = self.group(key)
        group.unregister_member(index)
        if group.has_no_active_members():
            del self._groups[key]

    def group(self, key: Hashable) -> ControllerGroup:
        """
        Return the group ``key``.

        :raises LookupError: if there is none.
        """
        try:
            return self._groups[key]
        except KeyError:
            raise LookupError(f'no controller group {key!r}') from None

    def step_all(self, states: Mapping[Hashable, States]) -> Dict[Hashable, GroupControl]:
        """
        Step every group with its states (one row per slot); return the results by key.

        :raises LookupError: if the states of a group are missing.
        """
        missing = [key for key in self._groups if key not in states]
        if missing:
            raise LookupError(f'no states for the groups {missing}')
        return {key: group.step(states[key]) for key, group in self._groups.items()}

    def __contains__(self, key: Hashable) -> bool:
        """Return True if a group ``key`` exists."""
        return key in self._groups

    def __iter__(self) -> Iterator[Hashable]:
        """Iterate over the keys of the groups."""
        return iter(self._groups)

    def __len__(self) -> int:
        """Return the number of groups."""
        return len(self._groups)
