"""
Run every benchmark in this folder (``bench_*.py``) and collect their reports.

Each benchmark is a script that measures something against a baseline measured in the same run,
prints a short table (medians, percentiles, ratios) and writes the same figures as JSON to
``bench/results/<name>.json``. Run them all with ``make bench``, or one with
``tools/with_ros_env.sh python bench/bench_<name>.py``.
"""

import pathlib
import subprocess
import sys

HERE = pathlib.Path(__file__).resolve().parent


def main() -> int:
    scripts = sorted(HERE.glob('bench_*.py'))
    if len(sys.argv) > 1:
        scripts = [path for path in scripts if any(name in path.stem for name in sys.argv[1:])]
    failed = []
    for script in scripts:
        print(f'=== {script.stem} ===', flush=True)
        if subprocess.run([sys.executable, str(script)]).returncode != 0:
            failed.append(script.stem)
    if failed:
        print('failed: ' + ', '.join(failed), file=sys.stderr)
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main())
