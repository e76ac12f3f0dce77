"""The waypoints file: exact round trip, atomic writes, corrupt files moved aside."""

import os
import pathlib
import re

import pytest
from robot_sm.waypoints import (
    DataStore,
    FollowingMode,
    PersistenceError,
    Pose,
    StoreSettings,
    WaypointFile,
    WaypointList,
)
from robot_sm.waypoints.persistence import from_document, to_document
import yaml

NOW = 1_700_000_000.0  # 2023-11-14T22:13:20Z


def sample() -> WaypointList:
    store = DataStore(settings=StoreSettings(waypoint_routines=('Wait',)))
    store.add_waypoint(Pose(0.1, -2.5, 0.0, 0.0, 0.0, 0.3826834323650898, 0.9238795325112867),
                       'Wait', -1)
    store.add_waypoint(Pose(1.0 / 3.0, 1e-17, 2.0), '', -1)
    store.add_waypoint(Pose(5.0, 5.0), '', 0)
    store.remove_waypoint(1)
    store.mark_unreachable(1)
    store.set_following_mode(2, True)
    return store.waypoints


def test_saved_list_loads_back_exactly(tmp_path: pathlib.Path) -> None:
    file = WaypointFile(tmp_path / 'waypoints.yaml')
    waypoints = sample()
    file.save(waypoints)
    loaded = file.load(NOW)
    assert loaded.problem == '' and loaded.waypoints == waypoints
    assert loaded.waypoints.next_id == 4, 'ids are not reused after a restart'
    assert [p.name for p in tmp_path.iterdir()] == ['waypoints.yaml'], 'no temporary file left'


def test_missing_file_is_an_empty_list(tmp_path: pathlib.Path) -> None:
    loaded = WaypointFile(tmp_path / 'none.yaml').load(NOW)
    assert loaded.waypoints == WaypointList() and loaded.problem == ''


def test_hand_written_file_gets_defaults_and_fresh_ids() -> None:
    document = yaml.safe_load("""
        mode: roundtrip
        waypoints:
        - {position: [1, 2, 0]}
        - {id: 7, position: [3, 4, 0], orientation: [0, 0, 2, 0], routine: Wait}
        - {position: [5, 6, 0]}
    """)
    waypoints = from_document(document)
    assert waypoints.mode is FollowingMode.ROUNDTRIP
    assert [w.id for w in waypoints.waypoints] == [8, 7, 9] and waypoints.next_id == 10
    assert waypoints.waypoints[1].pose.qz == 1.0, 'orientation normalised'


@pytest.mark.parametrize('content, problem', [
    ('waypoints: [ {position: [1, 2', 'is not valid YAML'),
    ('', 'must hold a mapping'),
    ('- 1\n- 2\n', 'must hold a mapping'),
    ('mode: zigzag\n', 'mode must be single, roundtrip or patrol'),
    ('waypoints:\n- {position: [1, 2]}\n', r'waypoints\[0\].position must be a list of 3'),
    ('waypoints:\n- {position: [1, .nan, 0]}\n', 'must hold finite numbers'),
    ('waypoints:\n- {position: [1, 2, 0], orientation: [0, 0, 0, 0]}\n',
     'must be a non-zero quaternion'),
    ('waypoints:\n- {id: 1, position: [0, 0, 0]}\n- {id: 1, position: [1, 0, 0]}\n',
     'id 1 is used twice'),
    ('waypoints:\n- {position: [0, 0, 0], visted: true}\n', "unknown keys \\['visted'\\]"),
    ('next_id: 2\nwaypoints:\n- {id: 5, position: [0, 0, 0]}\n', 'next_id 2 must be above'),
    ('version: 2\n', 'version 2 is not supported'),
])
def test_corrupt_file_is_moved_aside_not_overwritten(
        tmp_path: pathlib.Path, content: str, problem: str) -> None:
    path = tmp_path / 'waypoints.yaml'
    path.write_text(content)
    loaded = WaypointFile(path).load(NOW)
    assert loaded.waypoints == WaypointList()
    assert re.search(problem, loaded.problem), loaded.problem
    moved = tmp_path / 'waypoints.yaml.corrupt-20231114T221320Z'
    assert loaded.moved_to == str(moved)
    assert moved.read_text() == content and not path.exists()


def test_second_corrupt_file_in_the_same_second_gets_its_own_name(
        tmp_path: pathlib.Path) -> None:
    path = tmp_path / 'waypoints.yaml'
    for content in ('{', '['):
        path.write_text(content)
        WaypointFile(path).load(NOW)
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names == ['waypoints.yaml.corrupt-20231114T221320Z',
                     'waypoints.yaml.corrupt-20231114T221320Z-1']


def test_unreadable_file_is_moved_aside(tmp_path: pathlib.Path) -> None:
    path = tmp_path / 'waypoints.yaml'
    path.mkdir()  # unreadable as a file, whoever runs the test
    loaded = WaypointFile(path).load(NOW)
    assert 'cannot be read' in loaded.problem and pathlib.Path(loaded.moved_to).is_dir()
    assert not path.exists()


def test_corrupt_file_that_cannot_be_moved_aside_stops_the_start(
        tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / 'waypoints.yaml'
    path.write_text('{')

    def refuse(*_: object) -> None:
        raise PermissionError(13, 'Permission denied')

    monkeypatch.setattr(os, 'rename', refuse)
    with pytest.raises(PersistenceError, match='is not valid YAML .* cannot be moved aside'):
        WaypointFile(path).load(NOW)
    assert path.read_text() == '{'


def test_save_replaces_the_file_atomically(tmp_path: pathlib.Path,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / 'waypoints.yaml'
    file = WaypointFile(path)
    file.save(sample())
    before = path.read_text()

    def crash(*_: object) -> None:
        raise OSError(5, 'Input/output error')

    monkeypatch.setattr(os, 'replace', crash)
    with pytest.raises(OSError):
        file.save(WaypointList())
    assert path.read_text() == before, 'a failed write leaves the old file intact'
    assert [p.name for p in tmp_path.iterdir()] == ['waypoints.yaml']


def test_document_is_readable_yaml() -> None:
    document = to_document(sample())
    assert document['mode'] == 'patrol' and document['reverse'] is True
    assert document['waypoints'][0]['routine'] == '' and document['waypoints'][0]['id'] == 3
