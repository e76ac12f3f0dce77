"""
A ROS domain of its own for a process on a shared machine: claimed with a lock, held until exit.

``tools/with_ros_env.sh`` claims one the same way for every command it runs; a worker of a
parallel test run claims another for its tests, so that no two runs (or workers) on one machine
see each other's nodes. The locks live in ``$TMPDIR/robot_sm-domains/<id>.lock`` and are
released by the kernel when the process that holds one ends, whatever way it ends.
"""

import fcntl
import os
import pathlib
import random
import tempfile
from typing import IO, List, Optional

#: Domain ids handed out: within 0..101, whose DDS ports stay clear of Linux's ephemeral ports.
DOMAINS = range(1, 101)

_held: List[IO[bytes]] = []


def lock_directory() -> pathlib.Path:
    """Return the folder of the domain locks (shared with ``tools/with_ros_env.sh``)."""
    return pathlib.Path(os.environ.get('TMPDIR') or tempfile.gettempdir()) / 'robot_sm-domains'


def claim_ros_domain() -> int:
    """
    Claim a ROS domain no other process here holds; hold it until this process ends.

    :raises RuntimeError: if every domain of :data:`DOMAINS` is held.
    """
    folder = lock_directory()
    folder.mkdir(parents=True, exist_ok=True)
    first = random.randrange(len(DOMAINS))
    for offset in range(len(DOMAINS)):
        domain = DOMAINS[(first + offset) % len(DOMAINS)]
        lock: Optional[IO[bytes]] = open(folder / f'{domain}.lock', 'ab')
        assert lock is not None
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            lock.close()
            continue
        _held.append(lock)
        return domain
    raise RuntimeError(f'every ROS domain {DOMAINS.start}..{DOMAINS.stop - 1} is in use here')
