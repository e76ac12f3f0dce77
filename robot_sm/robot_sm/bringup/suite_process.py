"""
Nodes of the suite running in this process, each on an executor thread of its own.

``robot-sm up`` is for machines without ``ros2 launch``: every node runs in one process on an
executor of its own thread, as if it were its own process.
"""

import pathlib
import threading
import traceback
from typing import Any, Dict, List, Mapping, Optional, Sequence

from robot_sm.bringup.parameter_files import load_parameter_file, parameters_for
from robot_sm.bringup.suite_nodes import NodeSpec


class SuiteProcess:
    """Nodes running in this process, each on its own executor thread."""

    def __init__(self, specs: Sequence[NodeSpec], parameter_files: Sequence[pathlib.Path] = (),
                 overrides: Optional[Mapping[str, Mapping[str, Any]]] = None,
                 namespace: str = '', context: Optional[Any] = None) -> None:
        """
        Load the parameter files, create the nodes and start spinning them.

        :raises ParameterFileError: if a parameter file cannot be used.
        :raises ConfigurationError: if a node refuses its parameters; the message starts with
            the node's name.
        """
        import rclpy
        from rclpy.context import Context
        from rclpy.parameter import Parameter
        from robot_sm.parameters import ConfigurationError

        files = [load_parameter_file(path) for path in parameter_files]
        self._own_context = context is None
        self.context = Context() if context is None else context
        if self._own_context:
            rclpy.init(context=self.context)
        self.nodes: Dict[str, Any] = {}
        self.errors: Dict[str, BaseException] = {}
        self._executors: List[Any] = []
        self._threads: List[threading.Thread] = []
        self._stopping = False
        try:
            for spec in specs:
                values = parameters_for(
                    spec.executable, files,
                    {**spec.parameters, **(overrides or {}).get(spec.executable, {})}, namespace)
                try:
                    node = spec.load_class()(
                        context=self.context, namespace=namespace or '/',
                        parameter_overrides=[Parameter(k, value=v) for k, v in values.items()])
                except ConfigurationError as error:
                    raise ConfigurationError(f'{spec.executable}: {error}') from error
                self.nodes[spec.executable] = node
        except BaseException:
            self.shutdown()
            raise
        self._start_executors()

    def _start_executors(self) -> None:
        from rclpy.executors import SingleThreadedExecutor
        for name, node in self.nodes.items():
            executor = SingleThreadedExecutor(context=self.context)
            executor.add_node(node)
            thread = threading.Thread(target=self._spin, args=(name, executor), name=name,
                                      daemon=True)
            self._executors.append(executor)
            self._threads.append(thread)
            thread.start()

    def _spin(self, name: str, executor: Any) -> None:
        try:
            executor.spin()
        except BaseException as error:  # noqa: B902 - reported by failure(), unless stopping
            if not self._stopping:
                self.errors[name] = error
                traceback.print_exc()

    def failure(self) -> Optional[str]:
        """Return a line naming a node that stopped spinning because a callback raised, or None."""
        for name, error in self.errors.items():
            return f'{name} stopped: {type(error).__name__}: {error}'
        return None

    def shutdown(self) -> None:
        """Stop every executor and node."""
        import rclpy
        self._stopping = True
        for executor in self._executors:
            executor.shutdown(timeout_sec=2.0)
        for thread in self._threads:
            thread.join(timeout=5.0)
        for node in self.nodes.values():
            node.destroy_node()
        self.nodes.clear()
        if self._own_context:
            rclpy.try_shutdown(context=self.context)
