"""
A simulated fleet running in this process: for tests, the fleet demo and the scale benchmark.

:class:`RunningFleet` starts one robot_sim for N robots (``robot1`` ... ``robotN`` under a
namespace) and, per robot, the suite with its base_controller as a
:class:`robot_sm.bringup.running_suite.RunningSuite` (with its client and recorders), as
``robot-sm up --sim --robots N`` does, but all in this process. Each robot gets a DDS
participant of its own (an rclpy context) unless one ``context`` is given for all.

    with RunningFleet(3, world='office', parameter_files=shipped_parameter_files(sim=True)) as f:
        for name, suite in f.suites.items():
            print(name, suite.client.status().state)
"""

import pathlib
from typing import Any, Dict, Mapping, Optional, Sequence

from rclpy.context import Context
from robot_sm.bringup.running_suite import BOOT_TIMEOUT, RunningSuite
from robot_sm.bringup.suite_nodes import fleet_names, join_namespace, ROBOT_NODES, SIMULATOR
from robot_sm.bringup.suite_process import SuiteProcess


class RunningFleet:
    """One simulation, a suite per robot, and each suite's client."""

    def __init__(self, count: int, *, world: str = 'office',
                 parameter_files: Sequence[pathlib.Path] = (),
                 parameters: Optional[Mapping[str, Mapping[str, Any]]] = None,
                 namespace: str = '', context: Optional[Context] = None,
                 timeout: float = 10.0, ready_state: Optional[str] = 'Idle') -> None:
        """
        Start the simulation and the suites; wait until every robot is in ``ready_state``.

        :param parameters: per executable, parameters over those of the files (robot_sim's
            ``world`` and ``robots`` are set here).
        :raises ConfigurationError: if a node refuses its parameters (nothing is left running).
        """
        self.names = fleet_names(count)
        self.namespace = namespace
        overrides = {name: dict(values) for name, values in (parameters or {}).items()}
        sim = {**overrides.pop('robot_sim', {}), 'world': world, 'robots': self.names}
        #: The suites by robot name, in order.
        self.suites: Dict[str, RunningSuite] = {}
        self.simulation = SuiteProcess(SIMULATOR, parameter_files, {'robot_sim': sim},
                                       namespace, context)
        try:
            for name in self.names:
                self.suites[name] = RunningSuite(
                    parameter_files=parameter_files, parameters=overrides,
                    extra_nodes=ROBOT_NODES, namespace=join_namespace(namespace, name),
                    context=context, timeout=timeout, ready_state=None)
            if ready_state is not None:
                for suite in self.suites.values():
                    suite.wait_state(ready_state, timeout=BOOT_TIMEOUT)
        except BaseException:
            self.close()
            raise

    @property
    def robot_sim(self) -> Any:
        """Return the robot_sim node."""
        return self.simulation.nodes['robot_sim']

    def close(self) -> None:
        """Stop every suite, then the simulation."""
        for suite in self.suites.values():
            suite.close()
        self.suites.clear()
        self.simulation.shutdown()

    def __enter__(self) -> 'RunningFleet':
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()
