"""A client's node, spun on a thread of its own, in a context of its own unless given one."""

import threading
from typing import Optional

import rclpy
from rclpy.context import Context
from rclpy.executors import SingleThreadedExecutor
from rclpy.node import Node


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

    def close(self) -> None:
        """Stop the executor, destroy the node and shut down a context of its own."""
        self._executor.shutdown(timeout_sec=1.0)
        self._thread.join(timeout=2.0)
        self.node.destroy_node()
        if self._own_context:
            rclpy.try_shutdown(context=self.context)
