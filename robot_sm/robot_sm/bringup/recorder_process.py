"""
The incident recorder beside ``robot-sm up``: a process of its own, restarted if it ends.

``robot-sm up`` runs the suite's nodes in its own process; the recorder runs in a child process
with the same parameter files (``/**/incident_recorder`` entries), so that however it ends, the
mux goes on. One that ends on its own is started again (its incidents so far are on disk); one
that refused its parameters (exit code 2) is not, and ``robot-sm up`` says so and goes on
without it.
"""

import pathlib
import signal
import subprocess
import sys
import time
from typing import Any, IO, List, Optional, Sequence

#: Seconds between two starts of a recorder that keeps ending.
RESTART_AFTER = 1.0


def recorder_argv(namespace: str, parameter_files: Sequence[pathlib.Path]) -> List[str]:
    """Return the command line of the incident recorder of the suite in ``namespace``."""
    argv = [sys.executable, '-m', 'robot_sm.bringup.recorder_child', '--ros-args']
    if namespace.strip('/'):
        argv += ['-r', f"__ns:=/{namespace.strip('/')}"]
    for path in parameter_files:
        argv += ['--params-file', str(path)]
    return argv


def up_child(argv: Sequence[str], **popen: Any) -> subprocess.Popen:
    """
    Start a process that ``robot-sm up`` stops itself (SIGTERM), with ``popen``'s options.

    Its SIGINT is ignored: a terminal's Ctrl-C reaches every process of the group, and one that
    arrives while Python starts interrupts its imports with a traceback; up hears the Ctrl-C.
    """
    return subprocess.Popen(
        argv, preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN), **popen)


class RecorderProcess:
    """The incident recorder in a child process; :meth:`check` restarts it when it ended."""

    def __init__(self, namespace: str, parameter_files: Sequence[pathlib.Path],
                 arguments: Sequence[str] = (), output: Optional[IO[bytes]] = None) -> None:
        """Start it; ``arguments`` follow its ``--ros-args``, ``output`` takes what it prints."""
        self.argv = recorder_argv(namespace, parameter_files) + list(arguments)
        self._output = output
        self.process: Optional[subprocess.Popen] = None
        self._started = 0.0
        self.start()

    def start(self) -> None:
        """Start the recorder."""
        self._started = time.monotonic()
        self.process = up_child(
            self.argv, stdout=self._output, stderr=subprocess.STDOUT if self._output else None)

    def check(self) -> Optional[str]:
        """Restart the recorder if it ended (not if it refused its parameters); say so."""
        process = self.process
        if process is None or process.poll() is None:
            return None
        code = process.returncode
        if code == 2:
            self.process = None
            return ('the incident recorder refused its parameters (exit code 2, its reason '
                    'above): the suite runs without it')
        if time.monotonic() - self._started < RESTART_AFTER:
            return None
        self.start()
        return f'the incident recorder ended (exit code {code}): started it again'

    def begin_stop(self) -> None:
        """Tell the recorder to stop (SIGTERM: it writes the incidents still open)."""
        process = self.process
        if process is not None and process.poll() is None:
            process.send_signal(signal.SIGTERM)

    def stop(self, timeout: float = 10.0) -> None:
        """
        Stop the recorder and wait for it; kill it if it has not ended within ``timeout`` s.

        SIGTERM, not SIGINT: one that arrives while Python starts ends it at once (it has
        nothing open yet), where its SIGINT is still ignored.
        """
        process = self.process
        if process is None or process.poll() is not None:
            return
        self.begin_stop()
        try:
            process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
