"""
The node executables' entry points (``ros2 run robot_sm <executable>``, the launch files).

A console script imports its module before it calls the entry point, and a node's module
imports rclpy and its messages: most of a second on a busy machine before the node's ``main``
could take a signal. These entry points live in a module that imports nothing heavy: they take
SIGINT and SIGTERM first (:mod:`robot_sm.nodes.quiet_signals`), then import the node and run
it. A signal that comes while it is imported ends the process at once with exit code 0.
"""

import importlib

from robot_sm.nodes.quiet_signals import quiet_on_signals


def run(module: str) -> None:
    """Run the ``main`` of ``robot_sm.nodes.<module>``, signals taken from the start."""
    quiet_on_signals()
    importlib.import_module(f'robot_sm.nodes.{module}').main()


def base_controller() -> None:
    """Run the base_controller node."""
    run('base_controller')


def incident_recorder() -> None:
    """Run the incident_recorder node."""
    run('incident_recorder')


def robot_control_mux() -> None:
    """Run the robot_control_mux node."""
    run('robot_control_mux')


def robot_sim() -> None:
    """Run the robot_sim node."""
    run('robot_sim')


def service_provider() -> None:
    """Run the service_provider node."""
    run('service_provider')


def state_interface() -> None:
    """Run the state_interface node."""
    run('state_interface')


def teleop_retargeting() -> None:
    """Run the teleop_retargeting node."""
    run('teleop_retargeting')


def topic_recorder() -> None:
    """Run the topic_recorder node."""
    run('topic_recorder')


def xr_replay() -> None:
    """Run the xr_replay node."""
    run('xr_replay')
