"""Start, spin and stop a node of the suite the same way for every executable."""

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
from rclpy.task import Future

from robot_sm.nodes.quiet_signals import (
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
) -> int:
    """
    Create the node made by ``factory`` and spin it until shutdown; return the exit code.

    With ``until``, spinning also ends (exit code 0) when the future ``until(node)`` is done: a
    node with a job that finishes (a replay) ends its process.

    A :class:`~robot_sm.parameters.ConfigurationError` raised while the node is built (a parameter
    it cannot run with) is printed as one line and gives exit code 2. Ctrl-C, SIGTERM and an
    external shutdown end the node quietly with exit code 0, at any moment: see
    :mod:`robot_sm.nodes.quiet_signals`.

    Nodes run on a single-threaded executor unless ``threads`` asks for more; write callbacks that
    never block (asynchronous service calls with futures) rather than reaching for threads: rclpy's
    MultiThreadedExecutor can spin at full CPU on a small machine.
    """
    quiet_on_signals()
    if stop_requested():  # while the node's modules were imported
        ignore_signals()
        return 0
    rclpy.init(args=args)
    rclpy_handles_signals()
    context = rclpy.get_default_context()
    if stop_requested():  # before rclpy's handler was there: nothing shut the context down
        rclpy.try_shutdown()
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
