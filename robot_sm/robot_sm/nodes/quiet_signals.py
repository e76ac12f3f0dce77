"""
SIGINT and SIGTERM end a process of the suite quietly, from its first line on (no rclpy here).

A process is told to stop by Ctrl-C (SIGINT; ``ros2 launch`` forwards a second one) or by
SIGTERM (``ros2 launch`` after a timeout, systemd, ``kill``), at any moment: while Python imports
rclpy, while the node is made, in a callback, during the cleanup. :func:`quiet_on_signals`
takes both signals before anything heavy is imported. A node's process (``interrupt`` false)
that has not begun to start ROS (:func:`begin`) has nothing to clean up: it ends at once with
exit code 0 (on a busy machine the imports alone take seconds, and a KeyboardInterrupt in a C
extension's start would surface as an ImportError). From :func:`begin` on it only notes the
signal until rclpy's own handler is installed, and :func:`robot_sm.nodes.runner.run_node` ends
with exit code 0 after ``rclpy.init`` when :func:`stop_requested`. The ``robot-sm`` command
(``interrupt`` true) is interrupted by KeyboardInterrupt, as by Ctrl-C, and ends with 0. Once
rclpy handles the signals (:func:`rclpy_handles_signals`) its handler shuts the context down (the
executor ends) and calls this one, which does nothing more. A signal ignored by the parent (a
background process of a non-interactive shell) stays ignored.
"""

import os
import signal
import threading
from typing import Any

#: Set once rclpy's signal handler is installed.
_RCLPY_HANDLES_SIGNALS = threading.Event()
#: Set when a stop signal arrived.
_REQUESTED = threading.Event()
#: Set once the process begins to start ROS (something to clean up from then on).
_BEGUN = threading.Event()
#: Whether a signal raises KeyboardInterrupt until rclpy takes over (robot-sm), or is noted only.
_INTERRUPT = threading.Event()
#: The signals that stop a process of the suite.
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)


def _stop_quietly(signum: int, frame: Any) -> None:
    """Note the stop; interrupt (robot-sm) unless rclpy handles it (it has shut down)."""
    _REQUESTED.set()
    if _INTERRUPT.is_set():
        if not _RCLPY_HANDLES_SIGNALS.is_set():
            raise KeyboardInterrupt
    elif not _BEGUN.is_set():
        os._exit(0)  # nothing started yet: nothing to stop


def quiet_on_signals(interrupt: bool = False) -> None:
    """Make SIGINT and SIGTERM end this process quietly (see the module)."""
    if interrupt:
        _INTERRUPT.set()
    for sig in STOP_SIGNALS:
        if signal.getsignal(sig) in (signal.default_int_handler, signal.SIG_DFL):
            signal.signal(sig, _stop_quietly)


def begin() -> None:
    """Note that the process begins to start ROS: a signal is only noted from now on."""
    _BEGUN.set()


def stop_requested() -> bool:
    """Return whether SIGINT or SIGTERM arrived since :func:`quiet_on_signals`."""
    return _REQUESTED.is_set()


def rclpy_handles_signals() -> None:
    """Note that rclpy's handler is installed: it ends the node, this module's does nothing."""
    _RCLPY_HANDLES_SIGNALS.set()


def ignore_signals() -> None:
    """
    Ignore both signals from now on (the process has shut rclpy down and is ending).

    Python resets a handler of its own to the default action when the interpreter ends, and
    rclpy restores the default SIGTERM at its shutdown: a late signal would end the process with
    -2 or -15 instead of 0.
    """
    for sig in STOP_SIGNALS:
        if signal.getsignal(sig) is not signal.SIG_IGN:
            signal.signal(sig, signal.SIG_IGN)
