"""
Rates and periods have physically meaningful bounds: out of them a node refuses to start.

A rate of 1e-12 Hz used to pass validation and crash the node when its timer was created (a
pybind TypeError, exit code 1); 1e12 Hz was accepted and burnt a core. Now every node names the
parameter in one line and exits with code 2, also when started by ``robot-sm up`` with a
parameter file.
"""

import os
import pathlib
import subprocess
from typing import Any, List

import pytest
from rclpy.parameter import Parameter
from robot_sm.nodes.base_controller import BaseControllerNode
from robot_sm.nodes.robot_control_mux import RobotControlMux
from robot_sm.nodes.robot_sim import RobotSim
from robot_sm.nodes.service_provider import ServiceProvider
from robot_sm.nodes.state_interface import StateInterface
from robot_sm.nodes.teleop_retargeting import TeleopRetargeting
from robot_sm.parameters import ConfigurationError
from robot_sm.testing import RosHarness
from test_bringup import up_argv

TOO_SMALL, TOO_LARGE = 1e-12, 1e12

#: Every rate and period parameter of every node, plugin parameters included.
RATES_AND_PERIODS = [
    (RobotControlMux, 'update_frequency'),
    (RobotControlMux, 'operation_mode_keepalive_rate'),
    (RobotControlMux, 'teleoperation_idle_timer'),
    (RobotControlMux, 'autonomy_timeout'),
    (RobotControlMux, 'heartbeat_timeout'),
    (RobotControlMux, 'supervisor_timeout'),
    (BaseControllerNode, 'update_frequency'),
    (BaseControllerNode, 'command_timeout'),
    (StateInterface, 'update_frequency'),
    (StateInterface, 'service_timeout'),
    (StateInterface, 'Boot.retry_interval'),
    (StateInterface, 'Navigation.frontier_rate'),
    (StateInterface, 'Navigation.idle_timer_duration'),
    (StateInterface, 'CalculateGoal.map_timeout'),
    (RobotSim, 'update_frequency'),
    (RobotSim, 'sensor_frequency'),
    (RobotSim, 'command_timeout'),
    (TeleopRetargeting, 'rate_hz'),
    (TeleopRetargeting, 'input_timeout'),
    (ServiceProvider, 'navigation_reverse_timeout'),
]


@pytest.mark.parametrize('value', [TOO_SMALL, TOO_LARGE], ids=['too_small', 'too_large'])
@pytest.mark.parametrize('node_class, parameter', RATES_AND_PERIODS,
                         ids=[f'{c.__name__}.{p}' for c, p in RATES_AND_PERIODS])
def test_a_rate_or_period_out_of_bounds_is_refused(ros: RosHarness, node_class: Any,
                                                   parameter: str, value: float) -> None:
    overrides = [Parameter(parameter, value=value), Parameter('waypoints_file', value='')]
    with pytest.raises(ConfigurationError) as refusal:
        node_class(context=ros.context, namespace=ros.namespace,
                   parameter_overrides=overrides, allow_undeclared_parameters=True)
    message = str(refusal.value)
    assert f"parameter '{parameter}' must be" in message and '\n' not in message


@pytest.mark.parametrize('options, node, parameter, value', [
    ([], 'robot_control_mux', 'update_frequency', TOO_SMALL),
    ([], 'robot_control_mux', 'update_frequency', TOO_LARGE),
    ([], 'state_interface', 'update_frequency', TOO_SMALL),
    ([], 'service_provider', 'navigation_reverse_timeout', TOO_LARGE),
    (['--sim'], 'base_controller', 'update_frequency', TOO_SMALL),
    (['--sim'], 'robot_sim', 'update_frequency', TOO_LARGE),
    (['--teleop'], 'teleop_retargeting', 'rate_hz', TOO_SMALL),
])
def test_robot_sm_up_refuses_a_rate_out_of_bounds_with_exit_code_2(
        tmp_path: pathlib.Path, options: List[str], node: str, parameter: str,
        value: float) -> None:
    params = tmp_path / 'params.yaml'
    params.write_text(f'/**/{node}:\n  ros__parameters:\n    {parameter}: {value!r}\n')
    result = subprocess.run(up_argv(*options, '--params', str(params), namespace='/bounds'),
                            capture_output=True, text=True, timeout=120.0,
                            env={**os.environ, 'ROS_HOME': str(tmp_path)})
    assert result.returncode == 2, result.stderr
    last = result.stderr.strip().splitlines()[-1]
    assert last.startswith(f"robot-sm up: refusing to start: {node}: parameter '{parameter}'")
    assert 'Traceback' not in result.stderr, result.stderr
