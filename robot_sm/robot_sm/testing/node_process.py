"""
Nodes in child processes, started and stopped the way a robot's are.

:class:`NodeProcess` runs a node in a child process with SIGINT restored to its default in the
child (a process started from a non-interactive shell inherits it as ignored), in its own
process group, stopped by SIGINT with SIGKILL as a fallback; :func:`ros_args` builds its
``--ros-args``.
"""

import os
import re
import signal
import socket
import subprocess
import sys
import threading
from typing import Any, Dict, List, Optional, Sequence


#: Topics ROS names absolutely. Nodes of a harness, and node processes started with
#: :func:`ros_args`, use them inside the test's namespace, so that tests sharing a DDS domain
#: never see each other's clock, TF or diagnostics.
#: A line of Fast DDS's own log (its shared-memory transport failing to lock a port, ...),
#: colours taken out: the middleware's, not the process's.
FASTDDS_LOG_LINE = re.compile(r'^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d+ \[[A-Z_]+ [A-Za-z]+\]')
ANSI_COLOUR = re.compile(r'\x1b\[[0-9;]*m')
GLOBAL_TOPICS = ('/clock', '/tf', '/tf_static', '/diagnostics')


#: The remappings that do it (``/tf`` -> ``tf``, relative to the node's namespace).
NAMESPACED_GLOBAL_TOPICS = [arg for topic in GLOBAL_TOPICS
                            for arg in ('-r', f'{topic}:={topic[1:]}')]


def ros_args(namespace: str = '', parameters: Optional[Dict[str, Any]] = None,
             remaps: Optional[Dict[str, str]] = None) -> List[str]:
    """
    Build ``--ros-args`` for a node process: namespace, parameters and remappings.

    In a namespace, the global topics are moved into it as a harness does (see
    :data:`GLOBAL_TOPICS`).
    """
    args = ['--ros-args']
    if namespace:
        args += ['-r', f'__ns:={namespace}', *NAMESPACED_GLOBAL_TOPICS]
    for name, value in (parameters or {}).items():
        args += ['-p', f'{name}:={_param_literal(value)}']
    for old, new in (remaps or {}).items():
        args += ['-r', f'{old}:={new}']
    return args


def _param_literal(value: Any) -> str:
    if isinstance(value, bool):
        return 'true' if value else 'false'
    if isinstance(value, str):
        return value if value else "''"
    if isinstance(value, (list, tuple)):
        return '[' + ','.join(_param_literal(v) for v in value) + ']'
    return repr(value)


def free_udp_port() -> int:
    """Return a UDP port on 127.0.0.1 that nothing listens on now."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        probe.bind(('127.0.0.1', 0))
        return int(probe.getsockname()[1])


def python_module_argv(module: str, *args: str) -> List[str]:
    """Return the argv that runs ``python -m module args...`` with this interpreter."""
    return [sys.executable, '-m', module, *args]


class NodeProcess:
    """A node in a child process, stopped cleanly by SIGINT or, failing that, SIGKILL."""

    def __init__(self, argv: Sequence[str], env: Optional[Dict[str, str]] = None) -> None:
        self.argv = list(argv)
        self.process = subprocess.Popen(
            self.argv,
            env={**os.environ, **(env or {})},
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            start_new_session=True,
            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
        )
        self._output: List[str] = []
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self._output.append(line)

    @property
    def output(self) -> str:
        """Everything the process printed so far (stdout and stderr)."""
        return ''.join(self._output)

    def lines(self) -> List[str]:
        """Return the lines the process printed, without blank ones and Fast DDS's own."""
        return [line for line in self.output.splitlines()
                if line.strip() and not FASTDDS_LOG_LINE.match(ANSI_COLOUR.sub('', line))]

    @property
    def pid(self) -> int:
        """Process id of the child."""
        return self.process.pid

    def alive(self) -> bool:
        """Return True while the process runs."""
        return self.process.poll() is None

    def wait(self, timeout: float) -> Optional[int]:
        """Wait for the process to end; return its exit code, or None on timeout."""
        try:
            return self.process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            return None

    def show_stacks(self, wait: float = 2.0) -> None:
        """
        Make a hung process print where it hangs: SIGABRT to its group, then wait ``wait`` s.

        Started with ``PYTHONFAULTHANDLER=1`` in its environment, each Python process of the
        group prints every thread's stack as it ends.
        """
        self._signal_group(signal.SIGABRT)
        self.wait(wait)

    def kill(self) -> None:
        """SIGKILL the whole process group, as a crash would end it."""
        self._signal_group(signal.SIGKILL)
        self.process.wait(timeout=10.0)
        self._reader.join(timeout=2.0)

    def stop(self, timeout: float = 5.0) -> Optional[int]:
        """Stop with SIGINT; SIGKILL the process group if it has not ended after ``timeout``."""
        if self.alive():
            self._signal_group(signal.SIGINT)
            if self.wait(timeout) is None:
                self._signal_group(signal.SIGKILL)
                self.process.wait(timeout=10.0)
        # Children of the node (if any) share its group: make sure none is left.
        self._signal_group(signal.SIGKILL)
        self._reader.join(timeout=2.0)
        return self.process.returncode

    def _signal_group(self, sig: int) -> None:
        try:
            os.killpg(self.process.pid, sig)
        except (ProcessLookupError, PermissionError):
            pass
