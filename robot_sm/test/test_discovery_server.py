"""
A suite and a client that find each other through a Fast DDS discovery server, on loopback.

The server runs as ``fastdds discovery`` on 127.0.0.1 and a port of the test's own; ``robot-sm
up --discovery-server`` makes the suite's nodes its clients, and ``robot-sm status`` run as a
super client (``ROS_DISCOVERY_SERVER`` and ``ROS_SUPER_CLIENT``) reaches the suite through it,
while a participant on simple discovery (the test's own) never hears of the suite.
"""

import json
import os
import pathlib
import shutil
import subprocess
import time

from operator_suite import cli_command
import pytest
from robot_sm import qos
from robot_sm.testing import free_udp_port, RosHarness, wait_until
from std_msgs.msg import String

#: Start-up of the suite on a loaded 2-core machine.
START = 30.0


@pytest.mark.skipif(shutil.which('fastdds') is None, reason='fastdds (Fast DDS tools) not found')
def test_a_suite_and_a_super_client_meet_through_the_discovery_server(
        ros: RosHarness, tmp_path: pathlib.Path) -> None:
    address = f'127.0.0.1:{free_udp_port()}'
    host, port = address.split(':')
    server = ros.start_process(['fastdds', 'discovery', '-i', '0', '-l', host, '-p', port])
    assert wait_until(lambda: 'Server is running' in server.output, 10.0), server.output
    states = ros.record(String, 'robot_sm/state_info', qos.STATE)      # simple discovery
    suite = ros.start_process([*cli_command(), '--namespace', ros.namespace, 'up',
                               '--discovery-server', address],
                              env={'ROS_HOME': str(tmp_path)})
    client_env = {**os.environ, 'ROS_DISCOVERY_SERVER': address, 'ROS_SUPER_CLIENT': 'true'}
    deadline = time.monotonic() + START
    shown = {}
    while time.monotonic() < deadline:
        result = subprocess.run([*cli_command(), '--namespace', ros.namespace, '--json', 'status'],
                                capture_output=True, text=True, timeout=60.0, env=client_env)
        if result.returncode == 0:
            shown = json.loads(result.stdout)
            if shown['state'] == 'Idle':
                break
    assert shown.get('state') == 'Idle', f'{result.stderr}\n{suite.output}'
    # The suite's participants are the server's clients only: simple discovery never met them.
    assert states.messages == [], 'the suite was found without the discovery server'
    assert suite.alive(), suite.output
