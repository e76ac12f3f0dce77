"""
Two hosts on one machine: a robot and an operator station joined by a network link you can cut.

:class:`TwoHostRig` builds two network namespaces (``robot`` and ``operator``) joined by a veth
pair with addresses from the benchmarking range 198.18.0.0/15, and starts each side's processes
inside its namespace (``ip netns exec``). Inside a namespace only its own interfaces exist, so
DDS there reaches the other side over the veth link and nothing else: the machine's real network
never sees a packet. Each side discovers the other by multicast on the link's subnet
(``ROS_AUTOMATIC_DISCOVERY_RANGE=SUBNET``, Jazzy's default) or, with
``discovery='static_peers'``, by unicast to the peer's address (``ROS_STATIC_PEERS``). Each side
also has a ``/dev/shm`` of its own, as a host has: Fast DDS's shared-memory transport (which
carries each side's local traffic) would otherwise join the two sides past the link.

The link can be cut and restored (``ip link set ... down/up``) and slowed down like a weak
Wi-Fi (a ``tbf`` qdisc on both ends). :meth:`TwoHostRig.close` stops every process the rig
started, kills whatever else still runs in its namespaces and deletes them (the veth pair goes
with them); it also runs at interpreter exit, and a new rig removes the namespaces of rigs whose
process is gone. Names are unique per process and rig.

Needs root and ``ip netns``: :func:`unavailable_reason` says why a rig cannot be built here.
"""

import atexit
import itertools
import json
import os
import re
import shutil
import signal
import subprocess
import tempfile
import time
from typing import Dict, List, Optional, Sequence

from robot_sm.testing import NodeProcess

ROBOT = 'robot'
OPERATOR = 'operator'
SIDES = (ROBOT, OPERATOR)
#: The veth end's name inside each namespace (created there, never in the machine's own).
INTERFACE = 'link0'
#: Addresses from the benchmarking range (RFC 2544), one /24 per rig.
ADDRESSES = {ROBOT: '198.18.0.1', OPERATOR: '198.18.0.2'}
PREFIX_LENGTH = 24
#: What discovery over the link can be: unicast to the peer, or multicast on the subnet.
DISCOVERY = ('subnet', 'static_peers')
#: A weak Wi-Fi: 256 kbit/s with a 32 kbit bucket; packets that would queue longer than 400 ms
#: are dropped.
SLOW_LINK = {'rate': '256kbit', 'burst': '32kbit', 'latency': '400ms'}

_NAME = re.compile(r'^rsm-(?P<pid>\d+)-\d+-(?:robot|operator)$')
_rigs = itertools.count()


class RigError(RuntimeError):
    """A command building or changing the rig failed; the message names it."""


def _ip(*args: str, check: bool = True) -> subprocess.CompletedProcess:
    result = subprocess.run(['ip', *args], capture_output=True, text=True, timeout=30.0)
    if check and result.returncode != 0:
        raise RigError(f"ip {' '.join(args)}: {result.stderr.strip() or result.returncode}")
    return result


def unavailable_reason() -> Optional[str]:
    """Return why a rig cannot be built on this machine (not root, no ip netns), or None."""
    if os.geteuid() != 0:
        return 'the two-host rig needs root (network namespaces and veth pairs)'
    if shutil.which('ip') is None:
        return "the two-host rig needs iproute2's ip command"
    name = f'rsm-{os.getpid()}-{next(_rigs)}-robot'
    result = _ip('netns', 'add', name, check=False)
    if result.returncode != 0:
        return f'ip netns add does not work here: {result.stderr.strip()}'
    _ip('netns', 'delete', name, check=False)
    return None


def slow_link_unavailable_reason() -> Optional[str]:
    """Return why the link cannot be slowed down (no tc), or None."""
    if shutil.which('tc') is None:
        return "slowing the link down needs iproute2's tc command"
    return None


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _kill_everything_in(namespace: str) -> None:
    """SIGKILL every process still running in ``namespace``."""
    result = _ip('netns', 'pids', namespace, check=False)
    for pid in result.stdout.split():
        try:
            os.kill(int(pid), signal.SIGKILL)
        except (ProcessLookupError, ValueError):
            pass


def _delete(namespace: str) -> None:
    _kill_everything_in(namespace)
    _ip('netns', 'delete', namespace, check=False)


def remove_abandoned() -> List[str]:
    """Delete the namespaces of rigs whose process has ended without closing them; name them."""
    result = _ip('netns', 'list', check=False)
    removed = []
    for line in result.stdout.splitlines():
        name = line.split(' ')[0]
        match = _NAME.match(name)
        if match and not _alive(int(match['pid'])):
            _delete(name)
            removed.append(name)
    return removed


class TwoHostRig:
    """A robot and an operator host in network namespaces, joined by a veth link."""

    def __init__(self, discovery: str = 'subnet') -> None:
        """
        Build the namespaces and the link; raise :class:`RigError` if that fails.

        ``discovery`` is ``subnet`` (multicast discovery on the link's subnet) or
        ``static_peers`` (each side names the other in ``ROS_STATIC_PEERS``).
        """
        if discovery not in DISCOVERY:
            raise ValueError(f'discovery must be one of {DISCOVERY} (got {discovery!r})')
        self.discovery = discovery
        remove_abandoned()
        rig = f'rsm-{os.getpid()}-{next(_rigs)}'
        self.namespaces = {side: f'{rig}-{side}' for side in SIDES}
        self._homes = {side: tempfile.mkdtemp(prefix=f'{rig}-{side}-home-') for side in SIDES}
        self._shared_memory = {side: tempfile.mkdtemp(prefix=f'{rig}-{side}-shm-')
                               for side in SIDES}
        self._processes: List[NodeProcess] = []
        self._slow = False
        self._closed = False
        atexit.register(self.close)
        try:
            self._build()
        except BaseException:
            self.close()
            raise

    def _build(self) -> None:
        robot, operator = self.namespaces[ROBOT], self.namespaces[OPERATOR]
        for namespace in (robot, operator):
            _ip('netns', 'add', namespace)
        _ip('link', 'add', INTERFACE, 'netns', robot, 'type', 'veth',
            'peer', 'name', INTERFACE, 'netns', operator)
        for side in SIDES:
            namespace = self.namespaces[side]
            _ip('-n', namespace, 'addr', 'add', f'{ADDRESSES[side]}/{PREFIX_LENGTH}',
                'dev', INTERFACE)
            _ip('-n', namespace, 'link', 'set', 'lo', 'up')
            _ip('-n', namespace, 'link', 'set', INTERFACE, 'up')
        self._wait_until_up()

    def _wait_until_up(self, timeout: float = 5.0) -> None:
        """
        Return once both ends of the link are operationally up (IFF_RUNNING).

        The kernel applies a carrier change up to a second later (linkwatch), and Fast DDS leaves
        out interfaces that are not running when a participant starts: a process started in
        that second never talks over the link. Asking for the link's state applies the change.
        """
        deadline = time.monotonic() + timeout
        for namespace in self.namespaces.values():
            while True:
                shown = json.loads(_ip('-n', namespace, '-j', 'link', 'show', INTERFACE).stdout)
                if shown and shown[0].get('operstate') == 'UP':
                    break
                if time.monotonic() >= deadline:
                    raise RigError(f'{INTERFACE} in {namespace} is not up after {timeout:g} s')
                time.sleep(0.01)

    # ---- processes ----------------------------------------------------------------------------

    def env(self, side: str) -> Dict[str, str]:
        """Return the environment a process on ``side`` runs with (on top of this one's)."""
        peer = ADDRESSES[OPERATOR if side == ROBOT else ROBOT]
        static = self.discovery == 'static_peers'
        return {
            'ROS_AUTOMATIC_DISCOVERY_RANGE': 'LOCALHOST' if static else 'SUBNET',
            'ROS_STATIC_PEERS': peer if static else '',
            'ROS_HOME': self._homes[side],
            'ROS_LOG_DIR': os.path.join(self._homes[side], 'log'),
        }

    def full_env(self, side: str) -> Dict[str, str]:
        """Return this process's environment with :meth:`env` on top: what ``side`` runs with."""
        return {**os.environ, **self.env(side)}

    def argv(self, side: str, argv: Sequence[str]) -> List[str]:
        """Return ``argv`` run inside ``side``'s network namespace, with its ``/dev/shm``."""
        return ['ip', 'netns', 'exec', self.namespaces[side],
                'unshare', '--mount', '--propagation', 'private',
                'sh', '-c', 'mount --bind "$0" /dev/shm && exec "$@"',
                self._shared_memory[side], *argv]

    def start(self, side: str, argv: Sequence[str],
              env: Optional[Dict[str, str]] = None) -> NodeProcess:
        """Start a process on ``side``; :meth:`close` stops it if it is still running."""
        self._check_open()
        process = NodeProcess(self.argv(side, argv), env={**self.env(side), **(env or {})})
        self._processes.append(process)
        return process

    def run(self, side: str, argv: Sequence[str], timeout: float = 60.0,
            env: Optional[Dict[str, str]] = None) -> subprocess.CompletedProcess:
        """Run a command on ``side`` to its end and return what it printed and its exit code."""
        self._check_open()
        return subprocess.run(self.argv(side, argv), capture_output=True, text=True,
                              timeout=timeout, env={**self.full_env(side), **(env or {})})

    # ---- the link -----------------------------------------------------------------------------

    def cut(self) -> float:
        """Take the link down; return the monotonic time just before it was cut."""
        self._check_open()
        before = time.monotonic()
        _ip('-n', self.namespaces[ROBOT], 'link', 'set', INTERFACE, 'down')
        return before

    def restore(self) -> float:
        """Bring the link back up; return the monotonic time once it is up."""
        self._check_open()
        _ip('-n', self.namespaces[ROBOT], 'link', 'set', INTERFACE, 'up')
        self._wait_until_up()
        return time.monotonic()

    def slow_down(self, rate: str = SLOW_LINK['rate'], burst: str = SLOW_LINK['burst'],
                  latency: str = SLOW_LINK['latency']) -> None:
        """Limit both directions of the link with a token bucket (``tc ... tbf``)."""
        self._check_open()
        reason = slow_link_unavailable_reason()
        if reason:
            raise RigError(reason)
        for namespace in self.namespaces.values():
            result = subprocess.run(
                ['ip', 'netns', 'exec', namespace, 'tc', 'qdisc', 'replace', 'dev', INTERFACE,
                 'root', 'tbf', 'rate', rate, 'burst', burst, 'latency', latency],
                capture_output=True, text=True, timeout=30.0)
            if result.returncode != 0:
                raise RigError(f'tc qdisc replace ... tbf in {namespace}: '
                               f'{result.stderr.strip()}')
        self._slow = True

    def speed_up(self) -> None:
        """Remove the limit :meth:`slow_down` set."""
        self._check_open()
        for namespace in self.namespaces.values():
            subprocess.run(['ip', 'netns', 'exec', namespace, 'tc', 'qdisc', 'del', 'dev',
                            INTERFACE, 'root'], capture_output=True, timeout=30.0)
        self._slow = False

    # ---- cleanup ------------------------------------------------------------------------------

    def _check_open(self) -> None:
        if self._closed:
            raise RigError('the rig is closed')

    def close(self) -> None:
        """Stop every process, delete both namespaces and the link; safe to call again."""
        if self._closed:
            return
        self._closed = True
        for process in self._processes:
            try:
                os.killpg(process.pid, signal.SIGINT)
            except ProcessLookupError:
                pass
        for process in self._processes:
            process.stop(timeout=5.0)
        for namespace in self.namespaces.values():
            _delete(namespace)
        for folder in [*self._homes.values(), *self._shared_memory.values()]:
            shutil.rmtree(folder, ignore_errors=True)
        atexit.unregister(self.close)
