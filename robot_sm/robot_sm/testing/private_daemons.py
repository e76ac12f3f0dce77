"""
robot-sm daemons that only a test or a benchmark uses, and that it always stops.

:class:`PrivateDaemons` gives commands a socket folder of their own (``XDG_RUNTIME_DIR`` pointed
at a new temporary folder), so that they never reach the user's daemon nor leave one the user
would find. :meth:`PrivateDaemons.close` stops every daemon started there (``robot-sm daemon
stop``, then SIGKILL for one that does not end) and removes the folder.
"""

import os
import pathlib
import shutil
import signal
import stat
import subprocess
import tempfile
import time
from typing import Dict, List, Optional, Sequence

from robot_sm.frontends.daemon.client import running_pid

#: The module every daemon runs (to tell a daemon's pid from another process's).
SERVER_MODULE = b'robot_sm.frontends.daemon.server'


def _short_temporary_root() -> pathlib.Path:
    """
    Return the temporary folder, or the shortest shared one above it (sticky, for everyone).

    A test run may point ``TMPDIR`` at a folder inside another (parallel workers do), and a
    socket path has 107 bytes at most.
    """
    folder = pathlib.Path(tempfile.gettempdir()).resolve()
    shared = [path for path in folder.parents
              if path.stat().st_mode & (stat.S_ISVTX | 0o777) == stat.S_ISVTX | 0o777]
    return min([folder, *shared], key=lambda path: len(str(path)))


class PrivateDaemons:
    """A socket folder of its own for robot-sm commands and their daemons (see the module)."""

    def __init__(self) -> None:
        """Make the folder (short: a socket path holds 107 bytes at most)."""
        self.folder = pathlib.Path(tempfile.mkdtemp(prefix='rsmd-', dir=_short_temporary_root()))
        self.env: Dict[str, str] = {'XDG_RUNTIME_DIR': str(self.folder), 'ROBOT_SM_NO_DAEMON': ''}

    def full_env(self, more: Optional[Dict[str, str]] = None) -> Dict[str, str]:
        """Return this process's environment with :attr:`env` (and ``more``) on top."""
        return {**os.environ, **self.env, **(more or {})}

    def sockets(self) -> List[pathlib.Path]:
        """Return the sockets of every daemon that has run here."""
        return sorted(lock.with_suffix('.sock')
                      for lock in (self.folder / 'robot_sm').glob('daemon-*.lock'))

    def pids(self) -> List[int]:
        """Return the pids of the daemons running here."""
        found = [running_pid(path) for path in self.sockets()]
        return [pid for pid in found if pid]

    def wait_for_pids(self, count: int, timeout: float,
                      other_than: Sequence[int] = ()) -> List[int]:
        """Wait until ``count`` daemons (none of ``other_than``) run here; return their pids."""
        deadline = time.monotonic() + timeout
        while True:
            pids = [pid for pid in self.pids() if pid not in other_than]
            if len(pids) >= count or time.monotonic() >= deadline:
                return pids
            time.sleep(0.05)

    def _ours(self, pid: int) -> bool:
        try:
            command = pathlib.Path(f'/proc/{pid}/cmdline').read_bytes()
        except OSError:
            return False
        return SERVER_MODULE in command and os.fsencode(self.folder) in command

    def close(self, command: Sequence[str]) -> None:
        """Stop every daemon here with ``command daemon stop --all``, kill any left; clean up."""
        subprocess.run([*command, 'daemon', 'stop', '--all'], env=self.full_env(),
                       capture_output=True, timeout=60.0)
        for pid in self.pids():
            if self._ours(pid):
                try:
                    os.kill(pid, signal.SIGCONT)  # a test may have stopped it
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
        shutil.rmtree(self.folder, ignore_errors=True)
