"""A client's node, spun on a thread of its own, in a context of its own unless given one."""

import threading
from typing import Any, Callable, Dict, Optional, TypeVar

import rclpy
from rclpy.context import Context
from rclpy.executors import Executor, SingleThreadedExecutor
from rclpy.node import Node

T = TypeVar('T')


def run_on_executor(executor: Executor, action: Callable[[], T], timeout: float = 5.0) -> T:
    """
    Run ``action`` on the thread that spins ``executor``; return its value or raise its error.

    rclpy's ActionClient (Jazzy's wheels) keeps a sent goal, cancel or result request only
    after it sent it, without a lock: a response handled meanwhile by the spinning thread is
    dropped ("Ignoring unexpected goal response") and its future never completes (rclpy issue
    #1123). Sent from the spinning thread, the request is kept before any response is handled.

    :raises TimeoutError: if the executor did not run ``action`` within ``timeout`` seconds.
    """
    done = threading.Event()
    outcome: Dict[str, Any] = {}

    def run() -> None:
        try:
            outcome['value'] = action()
        except BaseException as error:  # noqa: B902 - raised again in the caller's thread
            outcome['error'] = error
        finally:
            done.set()
    executor.create_task(run)
    if not done.wait(timeout):
        raise TimeoutError(f'the executor did not run {action!r} within {timeout:g} s')
    if 'error' in outcome:
        raise outcome['error']
    return outcome['value']


class SpinningNode:
    """One node and the executor thread that serves its callbacks; :meth:`close` ends both."""

    def __init__(self, name: str, namespace: str = '/',
                 context: Optional[Context] = None) -> None:
        """Create node ``name`` in ``context`` (else in a context it initialises and owns)."""
        self._own_context = context is None
        self.context = Context() if context is None else context
        if self._own_context:
            rclpy.init(context=self.context)
        self.node = Node(name, namespace=namespace or '/', context=self.context,
                         start_parameter_services=False)
        self._executor = SingleThreadedExecutor(context=self.context)
        self._executor.add_node(self.node)
        self._thread = threading.Thread(target=self._spin, daemon=True)
        self._thread.start()

    def _spin(self) -> None:
        try:
            self._executor.spin()
        except Exception:  # noqa: B902 - shutdown races end the spin
            pass

    def run(self, action: Callable[[], T], timeout: float = 5.0) -> T:
        """Run ``action`` on the node's spinning thread (see :func:`run_on_executor`)."""
        if threading.current_thread() is self._thread:
            return action()
        return run_on_executor(self._executor, action, timeout)

    def close(self) -> None:
        """Stop the executor, destroy the node and shut down a context of its own."""
        self._executor.shutdown(timeout_sec=1.0)
        self._thread.join(timeout=2.0)
        self.node.destroy_node()
        if self._own_context:
            rclpy.try_shutdown(context=self.context)
