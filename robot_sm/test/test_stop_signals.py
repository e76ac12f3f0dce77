"""
Every process of the suite stops on SIGINT and on SIGTERM within 2 s, whenever the signal comes.

Each node executable (as ``ros2 run`` and the launch files start it) and ``robot-sm web`` is
started and stopped a few times, the signal alternating between SIGINT and SIGTERM and coming at
a random moment from the first line of the process's code on: while it imports rclpy, while its
node is made, while its callbacks run (:mod:`robot_sm.testing.stop_stress`). Each must end within
``STOP_LIMIT`` with exit code 0 and no traceback. ``bench/bench_stop.py`` runs 50 cycles of each
with a core kept busy (README, Measured).
"""

import pathlib
import random
import signal

import pytest
from robot_sm.testing import RosHarness, SCHEDULING_SLACK
from robot_sm.testing.stop_stress import cycle, PROCESSES, STOP_LIMIT


@pytest.mark.parametrize('name', list(PROCESSES))
def test_a_signal_at_any_moment_stops_the_process_within_2_s_with_exit_code_0(
        ros: RosHarness, tmp_path: pathlib.Path, name: str) -> None:
    chooser = random.Random()
    done = [cycle(name, ros.namespace, str(tmp_path), delay, sig,
                  limit=STOP_LIMIT + SCHEDULING_SLACK)
            for delay, sig in ((chooser.uniform(0.0, 0.5), signal.SIGINT),
                               (chooser.uniform(0.5, 2.0), signal.SIGTERM))]
    failures = [c.describe() for c in done if c.failed]
    assert not failures, '\n'.join(failures)
