"""Shared helpers of the benchmarks: percentiles, a printed table and a JSON report."""

import atexit
import json
import os
import pathlib
import shutil
import statistics
import tempfile
from typing import Any, Dict, Iterable, List, Sequence

RESULTS = pathlib.Path(__file__).resolve().parent / 'results'


def private_ros_home() -> str:
    """
    Point ROS_HOME at a temporary folder for this run (removed at exit) and return it.

    The nodes keep files there (the waypoint list, the e-stop latch); a benchmark must not leave
    them in the user's ``~/.ros``. Node processes inherit the environment.
    """
    home = tempfile.mkdtemp(prefix='robot_sm-bench-ros-home-')
    atexit.register(shutil.rmtree, home, ignore_errors=True)
    os.environ['ROS_HOME'] = home
    return home


def percentile(samples: Sequence[float], q: float) -> float:
    """Return the ``q``-th percentile (0..100) of ``samples`` by linear interpolation."""
    ordered = sorted(samples)
    if not ordered:
        raise ValueError('no samples')
    position = (len(ordered) - 1) * q / 100.0
    low = int(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def summary(samples: Iterable[float], scale: float = 1.0) -> Dict[str, float]:
    """Return n, p50, p90, p99 and max of ``samples`` multiplied by ``scale``."""
    values: List[float] = [s * scale for s in samples]
    return {
        'n': len(values),
        'p50': statistics.median(values),
        'p90': percentile(values, 90),
        'p99': percentile(values, 99),
        'max': max(values),
    }


def print_table(title: str, rows: List[Dict[str, Any]]) -> None:
    """Print ``rows`` (dicts with the same keys) as an aligned table under ``title``."""
    print(title)
    if not rows:
        return
    keys = list(rows[0])

    def cell(value: Any) -> str:
        return f'{value:.4g}' if isinstance(value, float) else str(value)

    widths = [max(len(k), *(len(cell(r[k])) for r in rows)) for k in keys]
    print('  '.join(k.ljust(w) for k, w in zip(keys, widths)))
    for row in rows:
        print('  '.join(cell(row[k]).ljust(w) for k, w in zip(keys, widths)))


def save(name: str, report: Dict[str, Any]) -> pathlib.Path:
    """Write ``report`` to ``bench/results/<name>.json`` and return the path."""
    RESULTS.mkdir(exist_ok=True)
    path = RESULTS / f'{name}.json'
    path.write_text(json.dumps(report, indent=2, sort_keys=True) + '\n')
    return path
