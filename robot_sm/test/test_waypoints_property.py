"""
Random sequences of requests against the data store, checked against a plain model.

The model keeps the list as Python lists and follows the RSM index rules written out again; after
every step the store must agree with it, ids must be unique and below ``next_id``, the goal's
waypoint index must be valid, and the waypoints file must hold exactly what is in memory.
"""

import math
import shutil
import tempfile
from typing import Any, Dict, List, Tuple

from hypothesis import settings, strategies as st
from hypothesis.stateful import initialize, invariant, rule, RuleBasedStateMachine
from robot_sm.waypoints import (
    checked_pose, DataStore, Pose, RequestError, StoreSettings, WaypointFile)

ROUTINES = ('Wait', 'Scan')
positions = st.integers(min_value=-3, max_value=8)
routines = st.sampled_from(('',) + ROUTINES + ('Dance',))
coordinates = st.floats(min_value=-50.0, max_value=50.0, allow_nan=False)
components = st.floats(min_value=-1.0, max_value=1.0, allow_nan=False)
quaternions = st.tuples(components, components, components, components).filter(
    lambda q: math.hypot(*q) > 1e-3)


def pose(x: float, quaternion: Tuple[float, float, float, float]) -> Pose:
    """Return a pose at ``x`` as a request would give it: validated and normalised."""
    return checked_pose('pose', x, 0.0, 0.0, *quaternion)


class DataStoreMachine(RuleBasedStateMachine):
    """Drive a DataStore saving to a real file and a model side by side."""

    @initialize()
    def start(self) -> None:
        self.directory = tempfile.mkdtemp(prefix='waypoints-property-')
        self.file = WaypointFile(f'{self.directory}/waypoints.yaml')
        self.store = DataStore(settings=StoreSettings(waypoint_routines=ROUTINES),
                               save=self.file.save)
        self.model: List[Dict[str, Any]] = []
        self.next_id = 1
        self.mode = 0
        self.reverse = False
        self.goal_id = None

    def teardown(self) -> None:
        directory = getattr(self, 'directory', None)
        if directory:
            shutil.rmtree(directory, ignore_errors=True)

    def _valid(self, position: int) -> bool:
        return 0 <= position < len(self.model)

    def _expect(self, ok: bool, action: Any) -> None:
        try:
            action()
        except RequestError:
            assert not ok, 'a valid request was refused'
        else:
            assert ok, 'an invalid request was carried out'

    @rule(x=coordinates, q=quaternions, routine=routines, position=positions)
    def add(self, x: float, q: Tuple[float, float, float, float], routine: str,
            position: int) -> None:
        ok = position >= -1 and routine in ('',) + ROUTINES
        self._expect(ok, lambda: self.store.add_waypoint(pose(x, q), routine, position))
        if ok:
            entry = {'id': self.next_id, 'pose': pose(x, q), 'visited': False,
                     'unreachable': False, 'routine': routine}
            index = position if self._valid(position) else len(self.model)
            self.model.insert(index, entry)
            self.next_id += 1

    @rule(position=positions, x=coordinates, q=quaternions)
    def move(self, position: int, x: float, q: Tuple[float, float, float, float]) -> None:
        ok = self._valid(position)
        self._expect(ok, lambda: self.store.move_waypoint(position, pose(x, q)))
        if ok:
            self.model[position]['pose'] = pose(x, q)

    @rule(position=positions)
    def remove(self, position: int) -> None:
        ok = self._valid(position)
        self._expect(ok, lambda: self.store.remove_waypoint(position))
        if ok:
            del self.model[position]

    @rule(position=positions, visited=st.booleans())
    def mark(self, position: int, visited: bool) -> None:
        ok = self._valid(position)
        action = self.store.mark_visited if visited else self.store.mark_unreachable
        self._expect(ok, lambda: action(position))
        if ok:
            self.model[position]['visited' if visited else 'unreachable'] = True

    @rule(position=positions, routine=routines)
    def set_routine(self, position: int, routine: str) -> None:
        ok = self._valid(position) and routine in ('',) + ROUTINES
        self._expect(ok, lambda: self.store.set_waypoint_routine(position, routine))
        if ok:
            self.model[position]['routine'] = routine

    @rule()
    def reset(self) -> None:
        self.store.reset_waypoints()
        for entry in self.model:
            entry['visited'] = entry['unreachable'] = False

    @rule(mode=st.integers(min_value=0, max_value=4), reverse=st.booleans())
    def set_mode(self, mode: int, reverse: bool) -> None:
        ok = mode <= 2
        self._expect(ok, lambda: self.store.set_following_mode(mode, reverse))
        if ok:
            self.mode, self.reverse = mode, reverse

    @rule(position=positions)
    def set_waypoint_goal(self, position: int) -> None:
        ok = self._valid(position)
        self._expect(ok, lambda: self.store.set_navigation_goal(Pose(), 1, position, ''))
        if ok:
            self.goal_id = self.model[position]['id']

    @rule(status=st.integers(min_value=0, max_value=4))
    def complete(self, status: int) -> None:
        self._expect(status <= 3, lambda: self.store.complete_navigation_goal(status, True))
        index = next((i for i, e in enumerate(self.model) if e['id'] == self.goal_id), None)
        if index is not None and status in (1, 2):
            self.model[index]['visited' if status == 1 else 'unreachable'] = True

    @rule()
    def finish_round(self) -> None:
        continues, _ = self.store.finish_round()
        assert continues == (self.mode != 0)
        if self.mode == 0:
            return
        for entry in self.model:
            entry['visited'] = entry['unreachable'] = False
        if self.mode == 2:
            if self.model:
                self.model[0 if self.reverse else -1]['visited'] = True
            self.reverse = not self.reverse

    @invariant()
    def agrees_with_the_model_and_the_file(self) -> None:
        if not hasattr(self, 'store'):
            return
        waypoints = self.store.waypoints
        ids = [w.id for w in waypoints.waypoints]
        assert len(set(ids)) == len(ids) and all(0 < i < waypoints.next_id for i in ids)
        assert waypoints.next_id == self.next_id
        assert (int(waypoints.mode), waypoints.reverse) == (self.mode, self.reverse)
        assert [{'id': w.id, 'pose': w.pose, 'visited': w.visited, 'unreachable': w.unreachable,
                 'routine': w.routine} for w in waypoints.waypoints] == self.model
        index = self.store.navigation_goal_index()
        assert index == -1 or waypoints.waypoints[index].id == self.goal_id
        assert self.file.load(0.0).waypoints == waypoints or (
            not self.file.path.exists() and not waypoints.waypoints and self.mode == 0
            and not self.reverse)


DataStoreMachine.TestCase.settings = settings(
    max_examples=150, stateful_step_count=30, deadline=None)
TestDataStoreMachine = DataStoreMachine.TestCase
