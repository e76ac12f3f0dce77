"""
The service provider's data store: everything the states share, with RSM's rules.

One :class:`DataStore` holds

- the waypoint list (:class:`~robot_sm.waypoints.waypoint_list.WaypointList`), saved through an
  optional ``save`` function after every change: if saving fails the change is not made;
- the navigation goal, with the waypoint of a waypoint goal remembered by id;
- the exploration goal's status and the failed (blacklisted) exploration goals;
- the exploration mode (true = interrupt) and the goal-obsolete flag;
- the reverse driving mode.

Every method either does what it says and returns a message for the caller, or raises a
:class:`~robot_sm.waypoints.errors.StoreError` (a ``RequestError`` names the request field) and
changes nothing. Field names are those of the robot_sm_msgs requests.

Completion rules (:meth:`DataStore.complete_navigation_goal`), by the stored goal's mode:

- WAYPOINT_FOLLOWING: REACHED marks the goal's waypoint visited, FAILED marks it unreachable,
  ABORTED and ACTIVE change nothing (the waypoint is tried again).
- EXPLORATION: the report replaces the exploration status only as
  :func:`~robot_sm.waypoints.navigation_goal.exploration_status_accepts` allows. When it does,
  FAILED adds the goal to the failed goals (once) and REACHED clears them: the map has grown, so
  goals that failed before may be reachable now.
- SIMPLE_GOAL or no goal: nothing changes.

The goal-obsolete flag is true while the exploration mode is interrupt, the goal is an
exploration goal, and the latest exploration goals hold none within
``exploration_goal_tolerance`` of it. It is reset to false whenever a goal is set.

Reverse driving (:attr:`DataStore.reverse_mode`) is not the list's ``reverse`` flag: the latter
is the order waypoints are followed in, the former whether the robot drives backwards.
"""

from typing import Callable, Iterable, Optional, Tuple

from robot_sm.quoting import quoted
from robot_sm.waypoints.errors import RequestError, SaveError
from robot_sm.waypoints.navigation_goal import (
    exploration_status_accepts,
    GoalStatus,
    NavigationGoal,
    NavigationMode,
)
from robot_sm.waypoints.pose import nearest_within, Pose
from robot_sm.waypoints.settings import StoreSettings
from robot_sm.waypoints.waypoint_list import FollowingMode, WaypointList


class DataStore:
    """Waypoints, navigation goal, failed goals and modes of the service provider."""

    def __init__(
        self,
        waypoints: WaypointList = WaypointList(),
        settings: StoreSettings = StoreSettings(),
        *,
        exploration_interrupt: bool = True,
        save: Optional[Callable[[WaypointList], None]] = None,
    ) -> None:
        self._waypoints = waypoints
        self.routines: Tuple[str, ...] = tuple(settings.waypoint_routines)
        self.failed_goal_tolerance = settings.failed_goal_tolerance
        self.exploration_goal_tolerance = settings.exploration_goal_tolerance
        self._save = save
        self.navigation_goal = NavigationGoal()
        self.exploration_status = GoalStatus.ACTIVE
        self.failed_goals: Tuple[Pose, ...] = ()
        self.exploration_interrupt = exploration_interrupt
        self.goal_obsolete = False
        self.reverse_mode = False

    # -- waypoint list ----------------------------------------------------------------------

    @property
    def waypoints(self) -> WaypointList:
        """Return the waypoint list as it is now (an immutable value)."""
        return self._waypoints

    def unknown_routines(self) -> Tuple[Tuple[int, str], ...]:
        """Return ``(id, routine)`` of waypoints naming a routine not in :attr:`routines`."""
        return tuple((w.id, w.routine) for w in self._waypoints.waypoints
                     if w.routine and w.routine not in self.routines)

    def _check_routine(self, routine: str, field: str) -> str:
        if routine and routine not in self.routines:
            known = ', '.join(self.routines) if self.routines else 'none are configured'
            raise RequestError(
                field, f'unknown routine {quoted(routine)} (waypoint_routines: {known}; '
                       'empty for none)')
        return routine

    def _commit(self, waypoints: WaypointList) -> None:
        if waypoints == self._waypoints:
            return
        if self._save is not None:
            try:
                self._save(waypoints)
            except OSError as error:
                raise SaveError(f'waypoints not saved, nothing changed: {error}') from error
        self._waypoints = waypoints

    def add_waypoint(self, pose: Pose, routine: str, position: int) -> Tuple[int, str]:
        """Insert a waypoint before ``position`` (else at the end); return its id and a message."""
        self._check_routine(routine, 'waypoint.routine')
        waypoints, index = self._waypoints.inserted(pose, routine, position)
        self._commit(waypoints)
        waypoint = waypoints.waypoints[index]
        where = 'at the end, ' if index == len(waypoints) - 1 else 'at '
        return waypoint.id, f'Added waypoint {waypoint.id} {where}index {index}'

    def move_waypoint(self, position: int, pose: Pose) -> str:
        """Replace the pose of waypoint ``position``."""
        self._commit(self._waypoints.moved(position, pose))
        return f'Moved waypoint {position}'

    def remove_waypoint(self, position: int) -> str:
        """Remove waypoint ``position``."""
        removed = self._waypoints.waypoints[self._waypoints.check_index(position)]
        self._commit(self._waypoints.removed(position))
        return f'Removed waypoint {position} (id {removed.id})'

    def mark_visited(self, position: int) -> str:
        """Mark waypoint ``position`` visited."""
        self._commit(self._waypoints.with_visited(position))
        return f'Waypoint {position} visited'

    def mark_unreachable(self, position: int) -> str:
        """Mark waypoint ``position`` unreachable."""
        self._commit(self._waypoints.with_unreachable(position))
        return f'Waypoint {position} unreachable'

    def reset_waypoints(self) -> str:
        """Clear every waypoint's visited and unreachable flags."""
        self._commit(self._waypoints.reset())
        return 'Waypoints reset'

    def reorder_waypoint(self, position: int, to: int) -> str:
        """Move waypoint ``position`` to index ``to``; it keeps its id and flags."""
        self._commit(self._waypoints.reordered(position, to))
        return f'Waypoint {position} moved to index {to}'

    def start_at(self, position: int) -> str:
        """Make waypoint ``position`` the next of waypoint following: those before it visited."""
        self._commit(self._waypoints.starting_at(position))
        return f'Waypoint following goes on from waypoint {position}'

    def set_following_mode(self, mode: int, reverse: bool) -> str:
        """Set the following mode (SINGLE, ROUNDTRIP, PATROL) and direction."""
        self._commit(self._waypoints.with_mode(mode, reverse))
        direction = 'reverse' if reverse else 'forward'
        return f'Waypoint following mode {FollowingMode(mode).name}, {direction}'

    def set_waypoint_routine(self, position: int, routine: str) -> str:
        """Set the routine of waypoint ``position`` (empty for none)."""
        self._check_routine(routine, 'routine')
        self._commit(self._waypoints.with_routine(position, routine))
        return f"Routine of waypoint {position} set to '{routine}'" if routine else \
            f'Routine of waypoint {position} cleared'

    def finish_round(self) -> Tuple[bool, str]:
        """
        Apply the following mode's end-of-round rule in one step.

        Return whether following continues: false for SINGLE (nothing changes); ROUNDTRIP resets
        the list; PATROL flips the direction, resets and marks the endpoint visited.
        """
        waypoints = self._waypoints.finish_round()
        if waypoints is None:
            return False, 'Single round finished'
        self._commit(waypoints)
        return True, f'{self._waypoints.mode.name.capitalize()} round restarted'

    # -- navigation goal --------------------------------------------------------------------

    def set_navigation_goal(self, pose: Pose, mode: int, waypoint_position: int,
                            routine: str) -> str:
        """
        Store the goal; a WAYPOINT_FOLLOWING goal names its waypoint by ``waypoint_position``.

        ``waypoint_position`` is ignored for other modes. The exploration status becomes ACTIVE
        and the goal-obsolete flag false.
        """
        if mode not in tuple(NavigationMode) or mode == NavigationMode.NONE:
            raise RequestError(
                'navigation_mode', f'{mode} is not a navigation mode: use 0 EXPLORATION, '
                                   '1 WAYPOINT_FOLLOWING or 2 SIMPLE_GOAL')
        navigation_mode = NavigationMode(mode)
        self._check_routine(routine, 'routine')
        index, waypoint_id = -1, None
        if navigation_mode is NavigationMode.WAYPOINT_FOLLOWING:
            index = self._waypoints.check_index(waypoint_position, 'waypoint_position')
            waypoint_id = self._waypoints.waypoints[index].id
        self.navigation_goal = NavigationGoal(pose, navigation_mode, index, waypoint_id, routine)
        self.exploration_status = GoalStatus.ACTIVE
        self.goal_obsolete = False
        if waypoint_id is None:
            return f'Navigation goal set: {navigation_mode.name}'
        return (f'Navigation goal set: {navigation_mode.name} '
                f'(waypoint {waypoint_position}, id {waypoint_id})')

    def navigation_goal_index(self) -> int:
        """Return the current index of the goal's waypoint; -1 if none or it was removed."""
        if self.navigation_goal.waypoint_id is None:
            return -1
        index = self._waypoints.index_of(self.navigation_goal.waypoint_id)
        return -1 if index is None else index

    def complete_navigation_goal(self, status: int, navigation_status: bool) -> str:
        """Apply a report of how the stored goal ended (see the module's completion rules)."""
        if status not in tuple(GoalStatus):
            raise RequestError(
                'status.goal_status', f'{status} is not a goal status: use 0 ACTIVE, '
                                      '1 REACHED, 2 FAILED or 3 ABORTED')
        reported = GoalStatus(status)
        goal = self.navigation_goal
        if goal.mode is NavigationMode.WAYPOINT_FOLLOWING:
            return self._complete_waypoint(goal, reported)
        if goal.mode is NavigationMode.EXPLORATION:
            return self._complete_exploration(goal, reported, navigation_status)
        return f'Navigation goal completed ({reported.name})'

    def _complete_waypoint(self, goal: NavigationGoal, reported: GoalStatus) -> str:
        assert goal.waypoint_id is not None
        index = self._waypoints.index_of(goal.waypoint_id)
        if index is None:
            return (f'Waypoint goal {reported.name}; its waypoint (id {goal.waypoint_id}) '
                    'was removed, nothing marked')
        if reported is GoalStatus.REACHED:
            self._commit(self._waypoints.with_visited(index))
            return f'Waypoint {index} completed: visited'
        if reported is GoalStatus.FAILED:
            self._commit(self._waypoints.with_unreachable(index))
            return f'Waypoint {index} completed: unreachable'
        return f'Waypoint {index} completed: {reported.name}, left as it was'

    def _complete_exploration(self, goal: NavigationGoal, reported: GoalStatus,
                              navigation_status: bool) -> str:
        if not exploration_status_accepts(self.exploration_status, reported, navigation_status):
            return (f'Exploration goal completed: {reported.name} ignored, the status is '
                    f'already {self.exploration_status.name}')
        self.exploration_status = reported
        if reported is GoalStatus.FAILED:
            self._add_failed_goal(goal.pose)
        elif reported is GoalStatus.REACHED:
            self.failed_goals = ()
        return f'Exploration goal completed: {reported.name}'

    # -- failed goals -----------------------------------------------------------------------

    def _add_failed_goal(self, pose: Pose) -> Optional[int]:
        match = nearest_within(pose, self.failed_goals, self.failed_goal_tolerance)
        if match is None:
            self.failed_goals += (pose,)
        return match

    def add_failed_goal(self, pose: Pose) -> str:
        """Add ``pose`` to the failed goals unless one is within ``failed_goal_tolerance``."""
        match = self._add_failed_goal(pose)
        if match is not None:
            return (f'Failed goal already listed (within {self.failed_goal_tolerance:g} m of '
                    f'failed goal {match}); not added again')
        return f'Failed goal added ({len(self.failed_goals)} listed)'

    def reset_failed_goals(self) -> str:
        """Forget every failed goal."""
        self.failed_goals = ()
        return 'Failed goals reset'

    # -- exploration mode and obsolete goals -------------------------------------------------

    def set_exploration_mode(self, interrupt: bool) -> str:
        """Set the exploration mode: true = interrupt (goals can turn obsolete), false = finish."""
        self.exploration_interrupt = bool(interrupt)
        if not self.exploration_interrupt:
            self.goal_obsolete = False
        return 'Exploration mode set to ' + ('interrupt' if interrupt else 'finish')

    def update_exploration_goals(self, goals: Iterable[Pose]) -> bool:
        """Recompute the goal-obsolete flag against the latest exploration goals; return it."""
        self.goal_obsolete = (
            self.exploration_interrupt
            and self.navigation_goal.mode is NavigationMode.EXPLORATION
            and nearest_within(self.navigation_goal.pose, goals,
                               self.exploration_goal_tolerance) is None)
        return self.goal_obsolete

    # -- reverse driving --------------------------------------------------------------------

    def check_reverse_mode(self, reverse: bool) -> None:
        """
        Check that switching the reverse driving mode to ``reverse`` is a change.

        :raises RequestError: if the robot already drives that way.
        """
        if bool(reverse) == self.reverse_mode:
            raise RequestError(
                'data', 'already in the requested mode: '
                        + ('reverse' if self.reverse_mode else 'forward'))

    def set_reverse_mode(self, reverse: bool) -> str:
        """Set the reverse driving mode (after :meth:`check_reverse_mode` and any handshake)."""
        self.reverse_mode = bool(reverse)
        return 'Reverse mode active' if self.reverse_mode else 'Forward mode active'
