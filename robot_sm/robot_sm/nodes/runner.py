"""Start, spin and stop a node of the suite the same way for every executable."""

import signal
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
    shutdown end the node quietly with exit code 0.

    Nodes run on a single-threaded executor unless ``threads`` asks for more; write callbacks that
    never block (asynchronous service calls with futures) rather than reaching for threads: rclpy's
    MultiThreadedExecutor can spin at full CPU on a small machine.
    """
    rclpy.init(args=args)
    node: Optional[Node] = None
    try:
        node = factory()
        executor: Executor = (SingleThreadedExecutor() if threads <= 1
                              else MultiThreadedExecutor(num_threads=threads))
        executor.add_node(node)
        if until is None:
            executor.spin()
        else:
            executor.spin_until_future_complete(until(node))
    except ConfigurationError as error:
        name = getattr(factory, '__name__', 'node')
        print(f'{name}: refusing to start: {error}', file=sys.stderr)
        return 2
    except (KeyboardInterrupt, ExternalShutdownException):
        pass
    finally:
        # ros2 launch forwards a second SIGINT after the terminal's: finish cleaning up.
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        if node is not None:
            node.destroy_node()
        rclpy.try_shutdown()
    return 0


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
