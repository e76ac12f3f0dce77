"""
Ctrl-C on ``ros2 launch`` ends every node of the suite quietly with exit code 0.

Each round starts the suite's nodes and the simulated robot, each in a process of its own as
``ros2 launch`` runs them, with fast timers so that callbacks are running when the signal comes,
waits until all are in the graph, and then does what a terminal's Ctrl-C and ``ros2 launch`` do:
SIGINT to every process, and a moment later a second one. The rounds repeat, with random
delays, to meet the races of a shutdown: a timer publishing on a context that is already shut
down, an executor waiting on it, a subscription taking a message from it.
"""

import random
import signal
import time
from typing import Dict, List

import pytest
from robot_sm.testing import NodeProcess, python_module_argv, ros_args, RosHarness, wait_until

#: The nodes of ``sim.launch.py``, with timers faster than usual to keep them busy.
NODES: Dict[str, Dict[str, object]] = {
    'robot_control_mux': {'update_frequency': 200.0, 'emergency_stop_file': ''},
    'service_provider': {},
    'state_interface': {'update_frequency': 200.0},
    'base_controller': {},
    'robot_sim': {'world': 'office', 'update_frequency': 200.0, 'sensor_frequency': 50.0},
}
#: Rounds of all five nodes under busy timers (test_stop_signals.py sends the signals at
#: random moments, start-up included, to every node alone; bench/bench_stop.py 50 cycles each).
ROUNDS = 2


def start_nodes(ros: RosHarness) -> List[NodeProcess]:
    # A hang is shown where it hangs: SIGABRT makes faulthandler print every thread's stack.
    return [ros.start_process(python_module_argv(
        f'robot_sm.nodes.{name}', *ros_args(ros.namespace, parameters)),
        env={'PYTHONFAULTHANDLER': '1'})
        for name, parameters in NODES.items()]


def in_graph(ros: RosHarness) -> bool:
    names = {name for name, namespace in ros.probe.get_node_names_and_namespaces()
             if namespace == ros.namespace}
    return set(NODES) <= names


def press_ctrl_c(processes: List[NodeProcess]) -> None:
    """Send SIGINT to every node, then once more (ros2 launch forwards one after the terminal)."""
    for sent in range(2):
        for process in processes:
            process.process.send_signal(signal.SIGINT)
        time.sleep(random.uniform(0.0, 0.05))


@pytest.mark.timeout(600)
def test_ctrl_c_ends_every_node_quietly_with_exit_code_0(ros: RosHarness) -> None:
    failures = []
    for round_number in range(ROUNDS):
        processes = start_nodes(ros)
        assert wait_until(lambda: in_graph(ros), timeout=60.0), \
            [p.output for p in processes]
        time.sleep(random.uniform(0.0, 0.5))
        press_ctrl_c(processes)
        for name, process in zip(NODES, processes):
            code = process.wait(15.0)
            if code is None:
                process.show_stacks()
            process.stop()
            if code != 0 or 'Traceback' in process.output:
                failures.append(f'round {round_number}: {name} ended with {code}:\n'
                                f'{process.output[-2000:]}')
        wait_until(lambda: not in_graph(ros), timeout=10.0)
    assert not failures, '\n'.join(failures)
