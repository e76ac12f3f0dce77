"""``robot-sm`` against a running suite, as the CLI tests call it: succeeding, refused, at once."""

import json
import subprocess
from typing import List, Sequence

from operator_suite import describe, run_cli, run_cli_together
from robot_sm.bringup.running_suite import RunningSuite


def cli(suite: RunningSuite, *args: str, timeout: float = 5.0) -> subprocess.CompletedProcess:
    return run_cli(suite.namespace, *args, timeout=timeout)


def ok(suite: RunningSuite, *args: str) -> subprocess.CompletedProcess:
    result = cli(suite, *args)
    assert result.returncode == 0, describe(result)
    return result


def refused(suite: RunningSuite, *args: str) -> subprocess.CompletedProcess:
    result = cli(suite, *args)
    assert result.returncode == 1, describe(result)
    return result


def together(suite: RunningSuite, *commands: Sequence[str],
             timeout: float = 5.0) -> List[subprocess.CompletedProcess]:
    return run_cli_together(suite.namespace, *commands, timeout=timeout)


def last_outcome(suite: RunningSuite) -> str:
    """Return how ``robot-sm status`` says the last activity ended."""
    return json.loads(ok(suite, '--json', 'status').stdout)['outcome']


def poses(suite: RunningSuite) -> list:
    """Return the waypoint list the service provider holds: x, y and routine."""
    return [(round(w.x, 6), round(w.y, 6), w.routine)
            for w in suite.client.waypoints().data['waypoints']]
