"""Start, spin and stop a node of the suite the same way for every executable."""

import signal
import sys
import threading
import time
from typing import Any, Callable, List, Optional

import rclpy
from rclpy.executors import (
    Executor,
    ExternalShutdownException,
    MultiThreadedExecutor,
    SingleThreadedExecutor,
)
from rclpy.node import Node
from rclpy.task import Future

from robot_sm.parameters import ConfigurationError


def run_node(
    factory: Callable[[], Node],
    args: Optional[List[str]] = None,
    *,
    threads: int = 1,
    until: Optional[Callable[[Any], Future]] = None,
) -> int:
    """
    Create the node made by ``factory`` and spin it until shutdown; return the exit code.

    With ``until``, spinning also ends (exit code 0) when the future ``until(node)`` is done: a
    node with a job that finishes (a replay) ends its process.

    A :class:`~robot_sm.parameters.ConfigurationError` raised while the node is built (a parameter
    it cannot run with) is printed as one line and gives exit code 2. Ctrl-C and an external
    shutdown end the node quietly with exit code 0: see :func:`_quiet_on_sigint`.

    Nodes run on a single-threaded executor unless ``threads`` asks for more; write callbacks that
    never block (asynchronous service calls with futures) rather than reaching for threads: rclpy's
    MultiThreadedExecutor can spin at full CPU on a small machine.
    """
    _quiet_on_sigint()
    try:
        rclpy.init(args=args)
    except KeyboardInterrupt:
        rclpy.try_shutdown()
        return 0
    _RCLPY_HANDLES_SIGINT.set()
    context = rclpy.get_default_context()
    node: Optional[Node] = None
    try:
        # Made before the node: made after a Ctrl-C during the node's start, it fails half-made.
        executor: Executor = (SingleThreadedExecutor() if threads <= 1
                              else MultiThreadedExecutor(num_threads=threads))
        node = factory()
        executor.add_node(node)
        if until is None:
            executor.spin()
        else:
            executor.spin_until_future_complete(until(node))
    except ConfigurationError as error:
        if not context.ok():
            return 0  # Ctrl-C while it was built: declaring a parameter met the shutdown
        name = getattr(factory, '__name__', 'node')
        print(f'{name}: refusing to start: {error}', file=sys.stderr)
        return 2
    except (KeyboardInterrupt, ExternalShutdownException):
        pass
    except Exception:  # noqa: B902 - whatever met the shutdown: rclpy raises several types
        if context.ok():
            raise
    finally:
        _clean_up(node, context)
    return 0


def _quiet_on_sigint() -> None:
    """
    Let Ctrl-C shut the node down through rclpy alone, however often it comes.

    rclpy's signal handler shuts the context down (the executor then ends) and calls the handler
    it found, Python's, which raises KeyboardInterrupt wherever the main thread is: in a callback,
    or in the middle of the cleanup after the first Ctrl-C (``ros2 launch`` forwards a second
    SIGINT after the terminal's). A handler that does nothing leaves the ending to rclpy. SIGINT
    ignored (a background process of a non-interactive shell) stays ignored.
    """
    if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
        signal.signal(signal.SIGINT, _leave_it_to_rclpy)


#: Set once rclpy's signal handler is installed; before that a Ctrl-C interrupts as usual.
_RCLPY_HANDLES_SIGINT = threading.Event()


def _leave_it_to_rclpy(signum: int, frame: Any) -> None:
    """Do nothing: rclpy's own handler, which calls this one, has shut the context down."""
    if not _RCLPY_HANDLES_SIGINT.is_set():
        raise KeyboardInterrupt


def _clean_up(node: Optional[Node], context: Any) -> None:
    """Destroy the node and shut rclpy down; what fails because it is already down is quiet."""
    try:
        if node is not None:
            node.destroy_node()
    except Exception:  # noqa: B902 - a node's cleanup may meet the shut-down context
        if context.ok():
            raise
    finally:
        rclpy.try_shutdown()
        # From here on, ignored: Python resets a handler of its own to the default action when
        # the interpreter ends, and a late SIGINT would then end the process with -2.
        signal.signal(signal.SIGINT, signal.SIG_IGN)


def seconds_clock(node: Node) -> Callable[[], float]:
    """
    Return a function giving the time in seconds the node's timing logic should use.

    The monotonic clock in real time (immune to wall-clock jumps) and the node's ROS clock when
    ``use_sim_time`` is true, so that timeouts follow a simulation's ``/clock``.
    """
    if node.get_parameter('use_sim_time').value:
        clock = node.get_clock()
        return lambda: clock.now().nanoseconds * 1e-9
    return time.monotonic
