"""
A simulated fleet of N robots: fleet view, fleet-wide stop, CPU per robot, discovery traffic.

For each N (default 1, 2, 4, 8, 16; it stops after the first N where the simulation's ticks
slip) and each discovery (simple, then a Fast DDS discovery server, in the same run so that
both see the same machine), it starts ``robot-sm up --sim --robots N`` (N suites,
each in a process of its own, and one robot_sim) and measures:

- **start-up**: from the launch until a fleet view (``FleetClient``) in this process sees all N;
- **fleet view**: a new ``FleetClient`` (a new participant) → ``wait_for_robots(count=N)``,
  with the fleet running (``--views`` times);
- **fleet estop → wheels zero**: every robot turning in place in teleoperation (20 Hz
  ``teleoperation/cmd_vel`` each), ``FleetClient.emergency_stop(True)`` → the first zero
  ``wheel_command`` (the base controller's output) of each robot; per trial the slowest robot
  (``--trials`` times), and the last robot's confirmation;
- **CPU per robot**: the CPU time of ``robot-sm up`` and the robots' processes over 10 s idle
  (e-stops engaged) / N, in % of a core;
- **ticks**: ``odom`` messages per robot per second over the same 10 s (robot_sim steps at
  50 Hz): below 90 % of that, the simulation slips;
- **discovery traffic**: UDP packets and bytes on ``lo`` sent to the run's discovery ports,
  counted by a raw socket (``AF_PACKET`` on ``lo``, outgoing copies only; needs root) while
  every participant uses UDPv4 only (``FASTDDS_BUILTIN_TRANSPORTS=UDPv4``, so that nothing goes
  through shared memory): the metatraffic ports of the run's domain (``7400 + 250 d``, and
  ``7400 + 250 d + 10 + 2 i`` for participant i) and the server's port. Reported for the
  start-up (launch until the view sees all N and 3 s more) and per second over the idle 10 s.
  User traffic (the odd ports) is counted apart. The benchmark's own two participants (the
  probe, the fleet view) are in the counts.

Run: ``tools/with_ros_env.sh python bench/bench_fleet.py [--robots 1 2 4 8] [--trials N]``.
"""

import argparse
import ctypes
import json
import multiprocessing
import os
import pathlib
import shutil
import socket
import struct
import subprocess
import sys
import time
from typing import Any, Dict, List, Optional

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

from geometry_msgs.msg import Twist, Vector3  # noqa: E402
from nav_msgs.msg import Odometry  # noqa: E402
from report import print_table, private_ros_home, save, summary  # noqa: E402
from robot_sm import qos  # noqa: E402
from robot_sm.bringup.environment import use_discovery_server  # noqa: E402
from robot_sm.bringup.suite_nodes import fleet_names  # noqa: E402
from robot_sm.client.fleet import FleetClient  # noqa: E402
from robot_sm.testing import (  # noqa: E402
    free_udp_port,
    NodeProcess,
    Recorder,
    RosHarness,
    wait_until,
)
from robot_sm_msgs.msg import OperationMode  # noqa: E402
from robot_sm_msgs.srv import SetOperationMode  # noqa: E402
from sensor_msgs.msg import JointState  # noqa: E402

#: robot_sim's steps per second (its update_frequency).
SIM_RATE = 50.0
#: The idle window for CPU, ticks and steady discovery traffic (s).
IDLE_WINDOW = 10.0
#: How long anything may take to start on a loaded 2-core machine (s).
START = 120.0
PACKET_OUTGOING = 4


# ---- counting discovery packets on lo -------------------------------------------------------


def count_loopback(domain: int, server_port: int, counters: Any, ready: Any) -> None:
    """Count UDP packets on lo by kind: [meta packets, meta bytes, user packets, user bytes]."""
    base = 7400 + 250 * domain
    sniffer = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(0x0003))
    sniffer.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 8 << 20)
    sniffer.bind(('lo', 0))
    ready.set()
    while True:
        data, address = sniffer.recvfrom(65535)
        if address[2] != PACKET_OUTGOING or data[12:14] != b'\x08\x00' or data[23] != 17:
            continue
        header = (data[14] & 15) * 4
        length = struct.unpack('!H', data[16:18])[0]
        port = struct.unpack('!H', data[14 + header + 2:14 + header + 4])[0]
        offset = port - base
        if port == server_port or offset == 0 or (10 <= offset < 250 and offset % 2 == 0):
            kind = 0
        elif offset == 1 or (11 <= offset < 250 and offset % 2 == 1):
            kind = 2
        else:
            continue
        with counters.get_lock():
            counters[kind] += 1
            counters[kind + 1] += length


class LoopbackCounter:
    """The counting process and a snapshot of its counters."""

    def __init__(self, domain: int, server_port: int) -> None:
        self.counters = multiprocessing.Array(ctypes.c_double, 4)
        ready = multiprocessing.Event()
        self.process = multiprocessing.Process(
            target=count_loopback, args=(domain, server_port, self.counters, ready), daemon=True)
        self.process.start()
        if not ready.wait(10.0):
            raise RuntimeError('the loopback counter did not start')

    def snapshot(self) -> List[float]:
        """Return [meta packets, meta bytes, user packets, user bytes] so far."""
        with self.counters.get_lock():
            return list(self.counters)

    def close(self) -> None:
        """Stop counting."""
        self.process.terminate()
        self.process.join(5.0)


def loopback_counting_problem() -> Optional[str]:
    """Return why packets on lo cannot be counted here, or None."""
    try:
        socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(0x0003)).close()
    except (PermissionError, OSError) as error:
        return f'cannot open a raw socket on lo ({error}): run as root'
    return None


# ---- one fleet ------------------------------------------------------------------------------


def cpu_seconds(pid: int) -> float:
    """Return the CPU time (user + system) of process ``pid`` and its children, in seconds."""
    total = 0.0
    for stat in pathlib.Path('/proc').glob('[0-9]*/stat'):
        try:
            fields = stat.read_text().rsplit(')', 1)[1].split()
        except OSError:
            continue
        if stat.parent.name == str(pid) or int(fields[1]) == pid:
            total += (int(fields[11]) + int(fields[12])) / os.sysconf('SC_CLK_TCK')
    return total


class Fleet:
    """``robot-sm up --sim --robots N`` and what the benchmark keeps of each robot."""

    def __init__(self, count: int, server: str) -> None:
        self.count = count
        self.names = fleet_names(count)
        executable = shutil.which('robot-sm')
        command = [executable] if executable else [sys.executable, '-m', 'robot_sm.frontends.cli']
        argv = [*command, 'up', '--sim', '--robots', str(count)]
        if server:
            argv += ['--discovery-server', server]
        self.launched = time.monotonic()
        self.process = NodeProcess(argv)
        # The robots are plain clients of the server; the benchmark's own participants, tools
        # that must see the whole graph, are super clients.
        use_discovery_server(server, super_client=True)
        self.ros = RosHarness(namespace='/')
        probe = self.ros.probe
        self.odometry: Dict[str, Recorder[Odometry]] = {
            name: self.ros.record(Odometry, f'{name}/odom') for name in self.names}
        self.wheels: Dict[str, Recorder[JointState]] = {
            name: self.ros.record(JointState, f'{name}/wheel_command', qos.EVENTS)
            for name in self.names}
        self.teleop = {name: self.ros.publisher(Twist, f'{name}/teleoperation/cmd_vel',
                                                qos.COMMAND_OUT) for name in self.names}
        self.modes = {name: probe.create_client(SetOperationMode,
                                                f'{name}/robot_sm/set_operation_mode',
                                                qos_profile=qos.SERVICES)
                      for name in self.names}
        self.turning = False
        probe.create_timer(0.05, self._turn)

    def _turn(self) -> None:
        if self.turning:
            for publisher in self.teleop.values():
                publisher.publish(Twist(angular=Vector3(z=1.0)))

    def teleoperate(self) -> None:
        """Select TELEOPERATION on every robot (e-stops released) and wait for the answers."""
        futures = []
        for name, client in self.modes.items():
            if not wait_until(client.service_is_ready, 30.0):
                raise TimeoutError(f'{name}: set_operation_mode is not available')
            request = SetOperationMode.Request()
            request.operation_mode = OperationMode(mode=OperationMode.TELEOPERATION)
            futures.append((name, client.call_async(request)))
        for name, future in futures:
            if not wait_until(future.done, 10.0) or not future.result().success:
                raise RuntimeError(f'{name}: teleoperation refused')

    def close(self) -> None:
        """Stop the fleet and the probe."""
        self.turning = False
        self.process.stop(timeout=20.0)
        self.ros.shutdown()


def first_zero_after(recorder: Recorder[JointState], after: float) -> Optional[float]:
    """Return the arrival time of the first all-zero wheel command after ``after``, or None."""
    for stamp, msg in recorder.stamped:
        if stamp >= after and all(v == 0.0 for v in msg.velocity):
            return stamp
    return None


def moving(recorder: Recorder[JointState]) -> bool:
    """Return whether the newest wheel command turns a wheel."""
    last = recorder.last
    return last is not None and any(v != 0.0 for v in last.velocity)


def measure_fleet_stops(fleet: 'Fleet', view: FleetClient, trials: int) -> Dict[str, Any]:
    """Stop the turning fleet ``trials`` times; return fleet stop to wheels zero and confirmed."""
    stops, confirms = [], []
    for _ in range(trials):
        missing = [a.namespace for a in view.emergency_stop(False) if not a.confirmed]
        if missing:
            raise RuntimeError(f'release not confirmed by {missing}')
        fleet.teleoperate()
        fleet.turning = True
        if not wait_until(lambda: all(moving(w) for w in fleet.wheels.values()), 10.0):
            raise TimeoutError('not every robot turned')
        asked = time.monotonic()
        acknowledgements = view.emergency_stop(True)
        if not all(a.confirmed for a in acknowledgements):
            raise RuntimeError(f'fleet stop not confirmed: {acknowledgements}')
        if not wait_until(lambda: all(first_zero_after(w, asked) is not None
                                      for w in fleet.wheels.values()), 10.0):
            raise TimeoutError('not every robot stopped')
        fleet.turning = False
        stops.append(max(first_zero_after(w, asked) or 0.0
                         for w in fleet.wheels.values()) - asked)
        confirms.append(max(a.seconds or 0.0 for a in acknowledgements))
    return {'estop_to_wheels_zero_ms': summary(stops, 1000.0),
            'estop_confirmed_ms': summary(confirms, 1000.0)}


def measure_idle(fleet: 'Fleet', counter: 'LoopbackCounter', count: int) -> Dict[str, Any]:
    """Return the idle fleet's CPU, odometry rate and discovery traffic over IDLE_WINDOW."""
    figures: Dict[str, Any] = {}
    before_cpu, before_traffic = cpu_seconds(fleet.process.pid), counter.snapshot()
    odom_before = {name: len(r.stamped) for name, r in fleet.odometry.items()}
    began = time.monotonic()
    time.sleep(IDLE_WINDOW)
    elapsed = time.monotonic() - began
    cpu = (cpu_seconds(fleet.process.pid) - before_cpu) / elapsed
    traffic = counter.snapshot()
    rates = [(len(r.stamped) - odom_before[name]) / elapsed
             for name, r in fleet.odometry.items()]
    figures['cpu_per_robot_pct'] = 100.0 * cpu / count
    figures['cpu_total_pct'] = 100.0 * cpu
    figures['odom_hz_min'] = min(rates)
    figures['ticks_slip'] = min(rates) < 0.9 * SIM_RATE
    figures['idle_discovery_packets_per_s'] = (traffic[0] - before_traffic[0]) / elapsed
    figures['idle_discovery_B_per_s'] = (traffic[1] - before_traffic[1]) / elapsed
    figures['idle_user_kB_per_s'] = (traffic[3] - before_traffic[3]) / elapsed / 1000
    return figures


def measure(count: int, mode: str, domain: int, trials: int, views: int) -> Dict[str, Any]:
    """Run one fleet of ``count`` robots with ``mode`` discovery; return its figures."""
    server_process: Optional[NodeProcess] = None
    server = ''
    port = 0
    if mode == 'server':
        port = free_udp_port()
        server = f'127.0.0.1:{port}'
        server_process = NodeProcess(['fastdds', 'discovery', '-i', '0', '-l', '127.0.0.1',
                                      '-p', str(port)])
        if not wait_until(lambda: 'Server is running' in server_process.output, 20.0):
            raise RuntimeError(f'the discovery server did not start:\n{server_process.output}')
    use_discovery_server(server)
    counter = LoopbackCounter(domain, port)
    fleet = Fleet(count, server)
    result: Dict[str, Any] = {'robots': count, 'discovery': mode}
    try:
        with FleetClient(timeout=10.0) as view:
            if len(view.wait_for_robots(count=count, timeout=START)) < count:
                raise TimeoutError(f'the fleet view did not see {count} robots:\n'
                                   f'{fleet.process.output[-2000:]}')
            result['start_up_s'] = time.monotonic() - fleet.launched
            if not wait_until(lambda: all(s.state == 'Idle' for s in view.status()), START):
                raise TimeoutError(f'not every robot reached Idle: {view.status()}')
            time.sleep(3.0)
            start_up = counter.snapshot()
            result['start_up_discovery_packets'] = start_up[0]
            result['start_up_discovery_kB'] = start_up[1] / 1000

            result.update(measure_fleet_stops(fleet, view, trials))

            time.sleep(1.0)
            result.update(measure_idle(fleet, counter, count))

        views_s = []
        for _ in range(views):
            began = time.monotonic()
            with FleetClient(timeout=START) as fresh:
                if len(fresh.wait_for_robots(count=count)) < count:
                    raise TimeoutError('a new fleet view did not see every robot')
                views_s.append(time.monotonic() - began)
        result['fleet_view_s'] = summary(views_s)
    finally:
        fleet.close()
        counter.close()
        if server_process is not None:
            server_process.stop()
        use_discovery_server('')
    return result


def measure_in_child(count: int, mode: str, trials: int, views: int) -> Dict[str, Any]:
    """
    Run :func:`measure` in a process of its own; return its figures.

    Each run starts with no DDS participant in the process, so that the discovery settings of
    the environment apply to all of its participants.
    """
    child = subprocess.run([sys.executable, __file__, '--one', str(count), mode, '--trials',
                            str(trials), '--views', str(views)],
                           stdout=subprocess.PIPE, text=True, timeout=30 * 60)
    if child.returncode != 0:
        raise RuntimeError(f'the run of {count} robots with {mode} discovery failed')
    return dict(json.loads(child.stdout.strip().splitlines()[-1]))


def main() -> int:
    """Measure fleets of growing size with both discoveries; print and save the figures."""
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0].strip())
    parser.add_argument('--robots', type=int, nargs='+', default=[1, 2, 4, 8, 16])
    parser.add_argument('--trials', type=int, default=15, help='fleet stops per fleet')
    parser.add_argument('--views', type=int, default=5, help='new fleet views per fleet')
    parser.add_argument('--one', nargs=2, metavar=('N', 'DISCOVERY'), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        private_ros_home()  # a fresh e-stop latch per robot and run
        os.environ['FASTDDS_BUILTIN_TRANSPORTS'] = 'UDPv4'
        figures = measure(int(args.one[0]), args.one[1], int(os.environ.get('ROS_DOMAIN_ID', '0')),
                          args.trials, args.views)
        print(json.dumps(figures), flush=True)
        return 0
    problem = loopback_counting_problem()
    if problem is not None or shutil.which('fastdds') is None:
        print(f"skipped: {problem or 'fastdds (the discovery server) is not installed'}")
        return 0
    rows, results = [], []
    for count in args.robots:
        slipped = False
        for mode in ('simple', 'server'):
            figures = measure_in_child(count, mode, args.trials, args.views)
            results.append(figures)
            slipped |= bool(figures['ticks_slip'])
            rows.append({
                'N': count, 'discovery': mode,
                'start-up s': figures['start_up_s'],
                'view p50 s': figures['fleet_view_s']['p50'],
                'view max s': figures['fleet_view_s']['max'],
                'stop→0 p50 ms': figures['estop_to_wheels_zero_ms']['p50'],
                'stop→0 p99 ms': figures['estop_to_wheels_zero_ms']['p99'],
                'CPU/robot %': figures['cpu_per_robot_pct'],
                'odom Hz min': figures['odom_hz_min'],
                'disc. pkts start': figures['start_up_discovery_packets'],
                'disc. kB start': figures['start_up_discovery_kB'],
                'disc. pkts/s idle': figures['idle_discovery_packets_per_s'],
                'disc. B/s idle': figures['idle_discovery_B_per_s'],
            })
            print_table(f'fleet of {count}, {mode} discovery', rows[-1:])
        if slipped:
            print(f'the simulation slips at {count} robots: stopping here')
            break
    print_table('fleet scale (simple discovery vs a discovery server, same run)', rows)
    save('fleet', {'results': results, 'sim_rate_hz': SIM_RATE, 'trials': args.trials,
                   'views': args.views})
    return 0


if __name__ == '__main__':
    sys.exit(main())
