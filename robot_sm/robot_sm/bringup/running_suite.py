"""
The suite running in this process, with a client on it: for tests, the demo and benchmarks.

:class:`RunningSuite` starts the suite's nodes
(:class:`robot_sm.bringup.suite_process.SuiteProcess`), with the simulated robot in a world if one
is named, and more nodes if given, in an rclpy context (a test harness's, or one of its own) and a
namespace; it hands out a :class:`robot_sm.client.SuiteClient` in the same context, records what an
operator sees (states, outcomes, operation modes, waypoint lists, each with its arrival time) and
waits until Boot has ended.

    with RunningSuite(world='maze', parameter_files=shipped_parameter_files(sim=True)) as suite:
        task = suite.client.explore()
        print(task.wait(300.0).status)
"""

import pathlib
from typing import Any, Callable, Dict, Mapping, Optional, Sequence, Union

import rclpy
from rclpy.context import Context
from rclpy.qos import QoSProfile
from robot_sm import qos
from robot_sm.bringup.recorder import Recorder, wait_until
from robot_sm.bringup.suite_nodes import NodeSpec, SIMULATION, SUITE
from robot_sm.bringup.suite_process import SuiteProcess
from robot_sm.client import SuiteClient
from robot_sm.contract import OPERATION_MODE, STATE_INFO, STATE_OUTCOME, WAYPOINTS
from robot_sm_msgs.msg import OperationMode, WaypointArray
from std_msgs.msg import String

#: Seconds the suite may take from its start to Idle on a loaded machine.
BOOT_TIMEOUT = 30.0


class RunningSuite:
    """The suite's nodes spinning in this process, a client, and what they published."""

    def __init__(self, *, world: Optional[str] = None,
                 parameter_files: Sequence[pathlib.Path] = (),
                 parameters: Optional[Mapping[str, Mapping[str, Any]]] = None,
                 extra_nodes: Sequence[NodeSpec] = (), leave_out: Sequence[str] = (),
                 namespace: str = '',
                 context: Optional[Context] = None, timeout: float = 10.0,
                 ready_state: Optional[str] = 'Idle') -> None:
        """
        Start the suite and wait until its state is ``ready_state`` (None: do not wait).

        :param world: start the simulated robot (base controller and simulation) in this world.
        :param parameter_files: ROS parameter files, in order (none: the nodes' defaults).
        :param parameters: per executable, parameters over those of the files.
        :param leave_out: executables of the suite not to start here (one that runs in a
            process of its own, say).
        :param timeout: the client's timeout, and the waits' default.
        :raises ConfigurationError: if a node refuses its parameters (nothing is left running).
        """
        self._own_context = context is None
        self._closed = False
        self.context = Context() if context is None else context
        if self._own_context:
            rclpy.init(context=self.context)
        self.timeout = timeout
        #: The namespace the suite runs in ('/' for none).
        self.namespace = namespace or '/'
        self.client = SuiteClient(namespace=namespace, timeout=timeout, context=self.context)
        self.states: Recorder[String] = self.record(String, STATE_INFO)
        self.outcomes: Recorder[String] = self.record(String, STATE_OUTCOME)
        self.modes: Recorder[OperationMode] = self.record(OperationMode, OPERATION_MODE)
        self.lists: Recorder[WaypointArray] = self.record(WaypointArray, WAYPOINTS)
        overrides: Dict[str, Dict[str, Any]] = {
            name: dict(values) for name, values in (parameters or {}).items()}
        simulation = list(SIMULATION) if world is not None else []
        if world is not None:
            overrides['robot_sim'] = {'world': world, **overrides.get('robot_sim', {})}
        specs = [spec for spec in SUITE if spec.executable not in leave_out] + simulation + \
            list(extra_nodes)
        try:
            self.process = SuiteProcess(specs, parameter_files, overrides, namespace,
                                        self.context)
        except BaseException:
            self._stop(process=None)
            raise
        #: The nodes by executable name.
        self.nodes: Dict[str, Any] = self.process.nodes
        if ready_state is not None:
            try:
                self.wait_state(ready_state, timeout=BOOT_TIMEOUT)
                self._wait_until_supervised()
            except BaseException:
                self.close()
                raise

    def _wait_until_supervised(self) -> None:
        """Wait until the mux has heard the state interface: until then it refuses AUTONOMOUS."""
        mux, supervisor = self.nodes.get('robot_control_mux'), self.nodes.get('state_interface')
        if mux is not None and supervisor is not None and \
                not wait_until(lambda: mux.supervisor_heard, timeout=BOOT_TIMEOUT):
            raise TimeoutError('the mux did not hear the state interface within '
                               f'{BOOT_TIMEOUT:g} s')

    def record(self, msg_type: Any, topic: str,
               profile: Union[QoSProfile, int] = qos.STATE_CHANGES) -> Recorder[Any]:
        """Record every message on ``topic`` (relative to the namespace) from now on."""
        recorder: Recorder[Any] = Recorder()
        self.client.node.create_subscription(msg_type, topic, recorder, profile)
        return recorder

    def wait_state(self, state: Union[str, Callable[[str], bool]], after: float = 0.0,
                   timeout: Optional[float] = None) -> float:
        """
        Wait for a state named ``state`` (or satisfying it) arriving at or after ``after``.

        Returns its monotonic arrival time.

        :raises TimeoutError: if none arrives within ``timeout`` (default: the client's).
        """
        check = state if callable(state) else (lambda name: name == state)
        self.states.wait_for(lambda msg: check(msg.data), after=after,
                             timeout=self.timeout if timeout is None else timeout)
        return next(t for t, msg in self.states.stamped if t >= after and check(msg.data))

    @property
    def state(self) -> str:
        """Return the newest state recorded, or ''."""
        last = self.states.last
        return last.data if last is not None else ''

    def close(self) -> None:
        """Stop the client and every node; shut the context down if it is the suite's own."""
        self._stop(self.process)

    def _stop(self, process: Optional[SuiteProcess]) -> None:
        if self._closed:
            return
        self._closed = True
        self.client.close()
        if process is not None:
            process.shutdown()
        if self._own_context:
            rclpy.try_shutdown(context=self.context)

    def __enter__(self) -> 'RunningSuite':
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()
