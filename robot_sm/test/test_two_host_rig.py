"""
The two-host rig itself: a link that can be cut, two hosts that see only it, and cleanup.

The scenarios that run the suite on it are in ``test_two_hosts.py``.
"""

import pathlib
import subprocess
import sys
import time
from typing import Iterator, List

import pytest
from robot_sm.testing import wait_until
from robot_sm.testing.topic_probe import EchoLog
from robot_sm.testing.two_host_rig import (
    ADDRESSES,
    DISCOVERY,
    INTERFACE,
    OPERATOR,
    remove_abandoned,
    ROBOT,
    TwoHostRig,
    unavailable_reason,
)

UDP_ECHO = ('import socket\n'
            's = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)\n'
            "s.bind(('0.0.0.0', 7777))\n"
            'print("ready", flush=True)\n'
            'while True:\n'
            '    data, peer = s.recvfrom(100)\n'
            '    s.sendto(data, peer)\n')
UDP_PING = ('import socket, sys\n'
            's = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)\n'
            's.settimeout(0.5)\n'
            f"s.sendto(b'ping', ('{ADDRESSES[ROBOT]}', 7777))\n"
            'try:\n'
            '    s.recvfrom(100)\n'
            'except OSError:\n'
            '    sys.exit(1)\n')


def namespaces() -> List[str]:
    """Return the network namespaces of the machine."""
    listed = subprocess.run(['ip', 'netns', 'list'], capture_output=True, text=True).stdout
    return [line.split(' ')[0] for line in listed.splitlines()]


def ended(pid: str) -> bool:
    """Return True once the process is gone; a zombie waiting for its parent counts as gone."""
    try:
        return pathlib.Path(f'/proc/{pid}/stat').read_text().rsplit(')', 1)[1].split()[0] == 'Z'
    except (FileNotFoundError, ProcessLookupError):
        return True


@pytest.fixture
def rig() -> Iterator[TwoHostRig]:
    reason = unavailable_reason()
    if reason:
        pytest.skip(reason)
    built = TwoHostRig()
    try:
        yield built
    finally:
        built.close()


def test_each_host_has_only_its_loopback_and_the_link(rig: TwoHostRig) -> None:
    for side in (ROBOT, OPERATOR):
        shown = rig.run(side, ['ip', '-o', 'link', 'show']).stdout
        assert sorted(line.split(': ')[1].split('@')[0] for line in shown.splitlines()) == \
            sorted(['lo', INTERFACE])


def test_the_link_carries_traffic_until_it_is_cut_and_again_once_restored(rig: TwoHostRig) -> None:
    echo = rig.start(ROBOT, [sys.executable, '-c', UDP_ECHO])
    deadline = time.monotonic() + 10.0
    while 'ready' not in echo.output and time.monotonic() < deadline:
        time.sleep(0.01)

    def ping() -> int:
        return rig.run(OPERATOR, [sys.executable, '-c', UDP_PING]).returncode

    assert ping() == 0
    rig.cut()
    assert ping() == 1
    rig.restore()
    assert ping() == 0


def test_close_ends_every_process_in_the_hosts_and_deletes_them() -> None:
    reason = unavailable_reason()
    if reason:
        pytest.skip(reason)
    rig = TwoHostRig()
    # One process in the rig's own process group, one that left it (a daemon would).
    rig.start(OPERATOR, ['sh', '-c', 'setsid sleep 600 & exec sleep 600'])
    deadline = time.monotonic() + 5.0
    pids: List[str] = []
    while len(pids) < 2 and time.monotonic() < deadline:
        pids = subprocess.run(['ip', 'netns', 'pids', rig.namespaces[OPERATOR]],
                              capture_output=True, text=True).stdout.split()
    assert len(pids) == 2
    rig.close()
    assert not set(rig.namespaces.values()) & set(namespaces())
    for pid in pids:
        assert wait_until(lambda: ended(pid), 5.0), f'process {pid} still runs'


def test_a_rig_left_behind_by_a_process_that_died_is_removed() -> None:
    reason = unavailable_reason()
    if reason:
        pytest.skip(reason)
    ended = subprocess.run([sys.executable, '-c', 'import os; print(os.getpid())'],
                           capture_output=True, text=True)
    left = f'rsm-{ended.stdout.strip()}-0-robot'
    subprocess.run(['ip', 'netns', 'add', left], check=True)
    try:
        assert left in remove_abandoned()
        assert left not in namespaces()
    finally:
        subprocess.run(['ip', 'netns', 'delete', left], capture_output=True)


@pytest.mark.parametrize('discovery', DISCOVERY)
def test_dds_discovers_the_other_host_with_either_discovery(discovery: str,
                                                            tmp_path: pathlib.Path) -> None:
    reason = unavailable_reason()
    if reason:
        pytest.skip(reason)
    rig = TwoHostRig(discovery)
    try:
        received = EchoLog(tmp_path / 'operator.jsonl')
        probe = [sys.executable, '-m', 'robot_sm.testing.topic_probe']
        rig.start(ROBOT, [*probe, 'stream', 'rig_check', 'std_msgs/msg/String', '10',
                          '{"data": "from the robot"}'])
        rig.start(OPERATOR, [*probe, 'echo', '--output', str(received.path),
                             'rig_check:std_msgs/msg/String:command_in'])
        # Fast DDS sometimes misses the first exchange and repairs it 3 s later.
        assert received.wait_for('rig_check', timeout=15.0)[1] == {'data': 'from the robot'}
    finally:
        rig.close()
