"""
The demo's incident: its office round ends with an e-stop while the robot drives.

The incident recorder runs beside the suite in a process of its own, as ``robot-sm up`` runs it,
and writes into the demo's output folder (what it prints goes to ``recorder.log`` there); the
e-stop becomes an incident whose record (the stop's figures) the demo prints.
"""

import pathlib
import time
from typing import Callable, List, Optional

from robot_sm.bringup.recorder_process import RecorderProcess
from robot_sm.recording.incident_files import IncidentFolder, IncidentRecord

#: Seconds the recorder may take to start and subscribe on a loaded machine.
RECORDER_START = 30.0


def _wait_until(predicate: Callable[[], bool], timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.05)
    return True


class DemoRecorder:
    """The incident recorder of the demo's suite, writing to ``folder``."""

    def __init__(self, folder: pathlib.Path, namespace: str = '',
                 parameter_files: Optional[List[pathlib.Path]] = None) -> None:
        self.folder = IncidentFolder(folder)
        folder.mkdir(parents=True, exist_ok=True)
        self.known = max(self.folder.ids(), default=0)
        self.log = folder / 'recorder.log'
        self._log = open(self.log, 'wb')
        self.recorder = RecorderProcess(namespace, parameter_files or [],
                                        ['-p', f'directory:={folder}'], self._log)

    def output(self) -> str:
        """Return what the recorder printed so far."""
        return self.log.read_text(errors='replace')

    def wait_ready(self, topic: str = 'odom') -> bool:
        """Wait until the recorder keeps ``topic``; False if it did not within the start."""
        return _wait_until(lambda: f'/{topic}' in self.output().partition('keeping')[2],
                           RECORDER_START)

    def wait_for_incident(self, timeout: float) -> Optional[IncidentRecord]:
        """Return the first incident written since the start (None within ``timeout``)."""
        found: List[IncidentRecord] = []

        def written() -> bool:
            found[:] = [r for r in self.folder.records() if r.id > self.known]
            return bool(found)
        return found[0] if _wait_until(written, timeout) else None

    def close(self) -> None:
        """Stop the recorder (it writes what is still open)."""
        self.recorder.stop(timeout=10.0)
        self._log.close()

    def __enter__(self) -> 'DemoRecorder':
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


def describe(record: IncidentRecord) -> str:
    """Return the incident's figures on one line."""
    def figure(value: Optional[float], text: str) -> str:
        return 'n/a' if value is None else text.format(value)
    to_zero = None if record.time_to_zero is None else record.time_to_zero * 1000.0
    return (f'incident {record.id} ({record.label}: {record.cause}): '
            f"{figure(record.speed, '{:.2f} m/s')} at the trigger, first zero command after "
            f"{figure(to_zero, '{:.0f} ms')}, at rest after "
            f"{figure(record.time_to_rest, '{:.2f} s')}, "
            f"{figure(record.distance, '{:.2f} m')} travelled; {record.before:.1f} s before "
            f'and {record.after:.1f} s after in {record.mcap}')


def stop_while_driving(engage: Callable[[], None], speed: Callable[[], float],
                       recorder: DemoRecorder, after_seconds: float, echo: Callable[[str], None],
                       timeout: float = 30.0) -> IncidentRecord:
    """
    Engage the e-stop once the robot drives (``speed``, m/s); return the incident written.

    :raises RuntimeError: if no incident is written within ``after_seconds`` and ``timeout``.
    """
    _wait_until(lambda: speed() > 0.15, timeout)
    echo(f'engaging the e-stop while driving at {speed():.2f} m/s')
    engage()
    started = time.monotonic()
    record = recorder.wait_for_incident(after_seconds + timeout)
    if record is None:
        raise RuntimeError(f'the e-stop left no incident within {after_seconds + timeout:g} s '
                           f'(recorder output:\n{recorder.output()[-2000:]})')
    echo(f'[{time.monotonic() - started:.1f} s later] {describe(record)}')
    return record
