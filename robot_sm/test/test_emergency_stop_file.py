"""The e-stop latch file and its background writer, without ROS."""

import os
import pathlib
import threading

import pytest
from robot_sm.mux.emergency_stop_file import EmergencyStopFile, Latch, utc_time
from robot_sm.storage import BackgroundWriter, default_file, PersistenceError
import yaml

NOW = 1_700_000_000.0  # 2023-11-14T22:13:20Z


def test_default_files_are_per_namespace(monkeypatch: pytest.MonkeyPatch,
                                         tmp_path: pathlib.Path) -> None:
    monkeypatch.setenv('ROS_HOME', str(tmp_path))
    assert default_file('/', 'x.yaml') == str(tmp_path / 'robot_sm' / 'x.yaml')
    assert default_file('', 'x.yaml') == str(tmp_path / 'robot_sm' / 'x.yaml')
    assert default_file('/robot1', 'x.yaml') == str(tmp_path / 'robot_sm' / 'robot1' / 'x.yaml')
    assert default_file('/fleet/r2/', 'x.yaml') == str(
        tmp_path / 'robot_sm' / 'fleet' / 'r2' / 'x.yaml')
    monkeypatch.delenv('ROS_HOME')
    assert default_file('/', 'x.yaml') == str(pathlib.Path.home() / '.ros' / 'robot_sm' /
                                              'x.yaml')


def test_an_engaged_latch_round_trips(tmp_path: pathlib.Path) -> None:
    file = EmergencyStopFile(tmp_path / 'estop.yaml')
    assert file.load(NOW).emergency_stop_reason == ''  # no file yet: released
    file.save(Latch(True, 'emergency_stop service', utc_time(NOW)))
    document = yaml.safe_load(file.path.read_text())
    assert document == {'format': 'robot_sm/emergency_stop', 'version': 1, 'engaged': True,
                        'reason': 'emergency_stop service', 'time': '2023-11-14T22:13:20.000Z'}
    loaded = file.load(NOW)
    assert loaded.problem == ''
    assert 'since 2023-11-14T22:13:20.000Z: emergency_stop service' in \
        loaded.emergency_stop_reason
    file.save(Latch(False, '', utc_time(NOW + 1.5)))
    assert file.load(NOW).emergency_stop_reason == ''


@pytest.mark.parametrize('content', [
    'engaged: [',                                        # not YAML
    'just text',                                         # not a mapping
    'format: robot_sm/emergency_stop\nversion: 1\n',     # no engaged flag
    'format: robot_sm/emergency_stop\nversion: 1\nengaged: "no"\n',
    'format: robot_sm/waypoints\nversion: 1\nengaged: false\n',
])
def test_a_file_that_is_not_a_latch_is_kept_aside_and_engages(tmp_path: pathlib.Path,
                                                              content: str) -> None:
    path = tmp_path / 'estop.yaml'
    path.write_text(content)
    loaded = EmergencyStopFile(path).load(NOW)
    assert loaded.emergency_stop_reason and loaded.problem
    assert 'engaged to be safe' in loaded.emergency_stop_reason
    kept = tmp_path / 'estop.yaml.corrupt-20231114T221320Z'
    assert kept.read_text() == content and not path.exists()


def test_a_bad_file_that_cannot_be_kept_aside_refuses(
        tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / 'estop.yaml'
    path.write_text('{')

    def refuse(*_: object) -> None:
        raise PermissionError(13, 'Permission denied')

    monkeypatch.setattr(os, 'rename', refuse)
    with pytest.raises(PersistenceError, match='cannot be moved aside'):
        EmergencyStopFile(path).load(NOW)
    assert path.read_text() == '{'


def test_the_writer_never_blocks_and_ends_with_the_newest_record() -> None:
    gate = threading.Event()
    saved = []

    def slow_save(record: int) -> None:
        gate.wait(5.0)
        saved.append(record)

    writer: BackgroundWriter[int] = BackgroundWriter(slow_save)
    for record in range(5):
        writer.write(record)  # returns at once although the disk is "slow"
    gate.set()
    assert writer.flush(5.0)
    assert saved[-1] == 4 and saved == sorted(saved)
    assert writer.close(5.0)


def test_the_writer_reports_failed_writes_and_goes_on() -> None:
    errors = []
    outcomes = iter([OSError(28, 'No space left on device'), None])

    def save(record: str) -> None:
        error = next(outcomes)
        if error is not None:
            raise error

    writer: BackgroundWriter[str] = BackgroundWriter(save, errors.append)
    writer.write('engaged')
    assert writer.flush(5.0)
    assert writer.error is not None and 'No space left' in writer.error
    assert errors == [writer.error] and writer.failed == 1
    writer.write('released')
    assert writer.flush(5.0)
    assert writer.error is None and writer.written == 1
    assert writer.close(5.0)
