"""
Every process of the suite stops on SIGINT and on SIGTERM within 2 s, whenever the signal comes.

50 start/stop cycles of each node executable (as ``ros2 run`` and the launch files start them)
and of ``robot-sm web`` (:mod:`robot_sm.testing.stop_stress`), with one core kept busy by a Python
loop (``--no-busy`` leaves it out): signals alternate between SIGINT and SIGTERM and come at a
random moment from the first line of the process's code (a third within its first half second:
while it imports rclpy and makes its node) to three seconds later. Counted: hangs (no end within
2 s), exit codes other than 0, tracebacks; measured: the time from the signal to the end.

Run: ``tools/with_ros_env.sh python bench/bench_stop.py [--cycles N] [--only NAME ...]``.
"""

import argparse
import os
import pathlib
import subprocess
import sys
import tempfile
from typing import Any, Dict, List

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

from report import print_table, private_ros_home, save, summary  # noqa: E402
from robot_sm.testing.stop_stress import Cycle, cycles, PROCESSES, STOP_LIMIT  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[1])
    parser.add_argument('--cycles', type=int, default=50, help='cycles per process')
    parser.add_argument('--only', nargs='+', choices=list(PROCESSES), default=list(PROCESSES))
    parser.add_argument('--no-busy', action='store_true', help='do not keep a core busy')
    parser.add_argument('--seed', type=int, default=None)
    options = parser.parse_args()

    private_ros_home()
    os.environ['ROBOT_SM_NO_DAEMON'] = '1'
    busy = None if options.no_busy else subprocess.Popen(
        [sys.executable, '-c', 'while True: pass'])
    try:
        with tempfile.TemporaryDirectory() as folder:
            done = cycles(options.only, options.cycles, f'/bench_stop_{os.getpid()}', folder,
                          seed=options.seed)
    finally:
        if busy is not None:
            busy.kill()
            busy.wait()

    rows: List[Dict[str, Any]] = []
    report: Dict[str, Any] = {'cycles': options.cycles, 'busy_core': busy is not None,
                              'limit_s': STOP_LIMIT}
    for name in options.only:
        mine: List[Cycle] = [c for c in done if c.name == name]
        ended = [c.seconds for c in mine if c.seconds is not None]
        counts = {'hangs': sum(c.seconds is None for c in mine),
                  'exit_not_0': sum(c.seconds is not None and c.exit_code != 0 for c in mine),
                  'tracebacks': sum(c.traceback for c in mine)}
        stats = summary(ended, 1000.0) if ended else {}
        report[name] = {**counts, 'stop_ms': stats}
        figures = {(key if key == 'n' else f'{key} ms'): value for key, value in stats.items()}
        rows.append({'process': name, **counts, **figures})
    print_table(f'stop on SIGINT / SIGTERM, {options.cycles} cycles each'
                + (', one core busy' if busy is not None else ''), rows)
    failures = [c for c in done if c.failed]
    for failure in failures:
        print(failure.describe(), file=sys.stderr)
    print(f'{len(done)} cycles: {len(failures)} failed (hang, exit code other than 0, or a '
          'traceback)')
    print(f"saved {save('bench_stop', report)}")
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
