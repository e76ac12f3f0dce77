"""
The robot control mux's e-stop latch on disk, as the node keeps it.

The file (:mod:`robot_sm.mux.emergency_stop_file`) is read at start, before anything is
published, and written on every engage and release by a background thread, so that stopping
never waits for the disk. A failed write is logged and shown in diagnostics.
"""

import os
import time
from typing import Callable, List, Optional, Tuple

from robot_sm.mux.emergency_stop_file import EmergencyStopFile, Latch, LatchLoad, utc_time
from robot_sm.nodes.node_parameters import load_kept_file
from robot_sm.storage import BackgroundWriter


class EmergencyStopLatch:
    """The latch file of ``emergency_stop_file`` (none if it is empty) and its writer."""

    def __init__(self, path: str, log_error: Callable[[str], None]) -> None:
        """
        Read the latch: :attr:`loaded` tells what the mux starts with.

        ``log_error`` logs problems with the file (from the writer's thread too).

        :raises ConfigurationError: if the file's directory cannot be created, or a corrupt file
            cannot be moved aside.
        """
        self._log_error = log_error
        self.file: Optional[EmergencyStopFile] = None
        self.loaded = LatchLoad()
        self._writer: Optional[BackgroundWriter[Latch]] = None
        if not path:
            return
        file = EmergencyStopFile(os.path.expanduser(path))
        self.loaded = load_kept_file(file, 'emergency_stop_file', 'disable the latch')
        if self.loaded.problem:
            log_error(f'emergency stop file {self.loaded.problem}')
        self.file = file
        self._writer = BackgroundWriter(file.save, self._on_write_error, 'emergency-stop-latch')

    def write(self, engaged: bool, reason: str) -> None:
        """Hand the e-stop's state to the writer; never waits for the disk."""
        if self._writer is not None:
            self._writer.write(Latch(engaged, reason, utc_time(time.time())))

    def _on_write_error(self, message: str) -> None:
        """Log a failed write (called on the writer's thread)."""
        self._log_error(f'cannot write the emergency stop latch: {message}; an engaged '
                        'e-stop may not survive a restart')

    def diagnostics(self) -> Tuple[List[Tuple[str, str]], str]:
        """Return the latch's diagnostic values, and the problem to report ('' if none)."""
        if self.file is None or self._writer is None:
            return [], ''
        values = [('emergency stop file', str(self.file.path))]
        error = self._writer.error
        if error is None:
            return values, ''
        values.append(('emergency stop file error', error))
        return values, (f'cannot write the emergency stop latch ({error}): an engaged e-stop '
                        'may not survive a restart')

    def close(self) -> None:
        """Finish writing."""
        if self._writer is not None:
            self._writer.close(timeout=2.0)
