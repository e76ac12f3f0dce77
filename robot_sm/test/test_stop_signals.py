"""
Every process of the suite stops on SIGINT and on SIGTERM within 2 s, whenever the signal comes.

Each node executable (as ``ros2 run`` and the launch files start it) and ``robot-sm web`` is
started and stopped a few times, the signal alternating between SIGINT and SIGTERM and coming at
a random moment from the first line of the process's code on: while it imports rclpy, while its
node is made, while its callbacks run (:mod:`robot_sm.testing.stop_stress`). Each must end within
``STOP_LIMIT`` with exit code 0 and no traceback. ``bench/bench_stop.py`` runs 50 cycles of each
with a core kept busy (README, Measured). A cleanup that hangs ends the process at its limit
(``run_node``'s ``cleanup_limit``), with exit code 1 and every thread's stack.
"""

import pathlib
import random
import signal
import sys
import time

import pytest
from robot_sm.testing import ros_args, RosHarness, SCHEDULING_SLACK, wait_until
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


#: A node whose own cleanup hangs (as DDS teardowns have been seen to hang).
HANGING_CLEANUP = """
import sys
import time
from rclpy.node import Node
from robot_sm.nodes.runner import run_node


class HangsInCleanup(Node):
    def __init__(self) -> None:
        super().__init__('hangs_in_cleanup')
        self.create_timer(0.05, lambda: None)
        self.get_logger().info('made')

    def destroy_node(self) -> None:
        time.sleep(60.0)


sys.exit(run_node(HangsInCleanup, cleanup_limit=1.0))
"""


def test_a_cleanup_that_hangs_ends_the_process_at_its_limit_showing_where(
        ros: RosHarness) -> None:
    process = ros.start_process([sys.executable, '-c', HANGING_CLEANUP,
                                 *ros_args(ros.namespace)])
    # (A node whose making a signal interrupts is never made: nothing to clean up.)
    assert wait_until(lambda: 'made' in process.output, timeout=30.0), process.output
    sent = time.monotonic()
    process.process.send_signal(signal.SIGINT)
    assert process.wait(1.0 + STOP_LIMIT + SCHEDULING_SLACK) == 1, process.output
    assert time.monotonic() - sent >= 1.0  # not before its limit
    assert 'Timeout' in process.output and 'in destroy_node' in process.output, process.output
