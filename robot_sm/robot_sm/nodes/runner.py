"""Start, spin and stop a node of the suite the same way for every executable."""

import faulthandler
import sys
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
from rclpy.signals import install_signal_handlers, SignalHandlerOptions
from rclpy.task import Future

from robot_sm.nodes.quiet_signals import (
    begin,
    ignore_signals,
    quiet_on_signals,
    rclpy_handles_signals,
    stop_requested,
)
from robot_sm.parameters import ConfigurationError


def run_node(
    factory: Callable[[], Node],
    args: Optional[List[str]] = None,
    *,
    threads: int = 1,
    until: Optional[Callable[[Any], Future]] = None,
    cleanup_limit: Optional[float] = None,
) -> int:
    """
    Create the node made by ``factory`` and spin it until shutdown; return the exit code.

    With ``until``, spinning also ends (exit code 0) when the future ``until(node)`` is done: a
    node with a job that finishes (a replay) ends its process.

    A :class:`~robot_sm.parameters.ConfigurationError` raised while the node is built (a parameter
    it cannot run with) is printed as one line and gives exit code 2. Ctrl-C, SIGTERM and an
    external shutdown end the node quietly with exit code 0, at any moment: see
    :mod:`robot_sm.nodes.quiet_signals`.

    The cleanup (the node's own, then the middleware's) may take ``cleanup_limit`` seconds
    (:data:`CLEANUP_LIMIT` by default): a cleanup that hangs past it, as DDS teardowns have been
    seen to, ends the process with exit code 1 and every thread's stack on stderr, not never.

    Nodes run on a single-threaded executor unless ``threads`` asks for more; write callbacks that
    never block (asynchronous service calls with futures) rather than reaching for threads: rclpy's
    MultiThreadedExecutor can spin at full CPU on a small machine.
    """
    quiet_on_signals()
    begin()
    if stop_requested():
        ignore_signals()
        return 0
    rclpy.init(args=args, signal_handler_options=SignalHandlerOptions.NO)
    context = rclpy.get_default_context()
    # Made before rclpy's handlers can shut the context down: made on a context already shut
    # down, an executor fails half-made (and its __del__ prints a traceback).
    executor: Executor = (SingleThreadedExecutor() if threads <= 1
                          else MultiThreadedExecutor(num_threads=threads))
    install_signal_handlers(SignalHandlerOptions.ALL)
    rclpy_handles_signals()
    if stop_requested():  # before rclpy's handler was there: nothing shut the context down
        rclpy.try_shutdown()
    node: Optional[Node] = None
    try:
        node = factory()
        executor.add_node(node)
        _spin_until_shutdown(executor, context, None if until is None else until(node))
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
        faulthandler.dump_traceback_later(
            CLEANUP_LIMIT if cleanup_limit is None else cleanup_limit, exit=True)
        _clean_up(node, context)
    return 0


#: Seconds a node's process may take to clean up after its node stopped spinning (see
#: :func:`run_node`); a stop takes well under 1 s (bench/bench_stop.py).
CLEANUP_LIMIT = 5.0


#: Longest wait of the executor before it looks whether the context was shut down.
SHUTDOWN_CHECK_PERIOD = 0.2


def _spin_until_shutdown(executor: Executor, context: Any, future: Optional[Future]) -> None:
    """
    Spin until the context is shut down (or ``future`` is done), looking at least every 0.2 s.

    rclpy's signal handling thread first wakes the executors, then shuts the contexts down: an
    executor that was woken before the shutdown, and waits again, is woken by nothing more (the
    shutdown from that thread calls no ``on_shutdown`` callback). A node without a timer of its
    own (the service provider) then waited for ever, and a second SIGINT or a SIGTERM did
    nothing either. Waiting at most :data:`SHUTDOWN_CHECK_PERIOD` ends it within that time.
    """
    # A signal also ends it by itself (its handler is called by rclpy's, or alone when rclpy's
    # was not there yet): rclpy's thread was seen not to shut the context down (2 of 450 starts).
    while context.ok() and not stop_requested() and (future is None or not future.done()):
        if future is None:
            executor.spin_once(timeout_sec=SHUTDOWN_CHECK_PERIOD)
        else:
            executor.spin_once_until_future_complete(future, timeout_sec=SHUTDOWN_CHECK_PERIOD)


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
        ignore_signals()


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
