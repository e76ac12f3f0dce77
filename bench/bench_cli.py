"""
The operator's fast path: ``robot-sm`` through its daemon against the same with ``--no-daemon``.

Every figure is taken for both, alternating, in the same run (so that both see the same machine
load), with the commands run as an operator runs them: a new ``robot-sm`` process each time,
timed from just before it is started.

- **command time**: ``robot-sm status``, ``robot-sm waypoint list`` and ``robot-sm estop on``
  against ``robot-sm up --sim``: wall time of the process, ``--samples`` each way (the e-stop is
  released between two);
- **e-stop to wheels**: from the start of the ``robot-sm estop on`` process to the first zero on
  ``cmd_vel``, while a 50 Hz ``autonomy/cmd_vel`` stream drives in AUTONOMOUS (``--samples``
  through the daemon, ``--direct-samples`` without);
- **fleet stop**: ``robot-sm fleet estop on`` against ``robot-sm up --sim --robots N`` (3, 8):
  from the start of the process until every robot's ``robot_sm/operation_mode`` shows the
  e-stop (the daemon has followed the fleet before), ``--fleet-samples`` and
  ``--direct-samples``, and how often a robot did not confirm within ``--timeout``;
- **a frozen robot**: one robot of the 3 stopped with SIGSTOP after the daemon saw it;
  ``robot-sm fleet estop on --expect 3 --timeout 2``: what each says, and when;
- **a slow link**: on the two-host rig (``robot_sm.testing.two_host_rig``, a 256 kbit/s token
  bucket on the link), ``robot-sm status`` from the operator host (needs root and ``ip netns``;
  skipped and said otherwise).

The daemons run in a socket folder of the benchmark's own (``XDG_RUNTIME_DIR``) and are stopped
at the end. The commands keep their compiled modules (in a temporary folder), as on a user's
machine, even where ``PYTHONDONTWRITEBYTECODE`` is set.

Run: ``tools/with_ros_env.sh python bench/bench_cli.py [--samples N]``.
"""

import argparse
import atexit
import itertools
import os
import pathlib
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from typing import Any, Callable, Dict, Iterator, List, Optional, Sequence, Tuple

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

from geometry_msgs.msg import Twist, Vector3  # noqa: E402
from report import print_table, private_ros_home, save, summary  # noqa: E402
from robot_sm import qos  # noqa: E402
from robot_sm.bringup.suite_nodes import fleet_names  # noqa: E402
from robot_sm.client.fleet import FleetClient, SETTLE_TIME  # noqa: E402
from robot_sm.testing import NodeProcess, RosHarness, wait_until  # noqa: E402
from robot_sm.testing.private_daemons import PrivateDaemons  # noqa: E402
from robot_sm.testing.two_host_rig import (  # noqa: E402
    OPERATOR,
    ROBOT,
    slow_link_unavailable_reason,
    TwoHostRig,
    unavailable_reason,
)
from robot_sm_msgs.msg import OperationMode  # noqa: E402
from robot_sm_msgs.srv import SetOperationMode  # noqa: E402
from std_srvs.srv import SetBool  # noqa: E402

#: How long anything may take to start on a loaded 2-core machine (s).
START = 120.0
WAYS = ('daemon', 'direct')


def robot_sm_command() -> List[str]:
    """Return the installed ``robot-sm`` console script, else ``python -m ...frontends.cli``."""
    script = shutil.which('robot-sm')
    return [script] if script else [sys.executable, '-m', 'robot_sm.frontends.cli']


def keep_bytecode() -> None:
    """
    Let Python keep compiled modules in a temporary folder, in every process started from here.

    On a user's machine Python keeps them beside the sources; where ``PYTHONDONTWRITEBYTECODE``
    is set, every start of ``robot-sm`` would compile its modules again, which no user pays.
    """
    folder = tempfile.mkdtemp(prefix='robot_sm-bench-pycache-')
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    os.environ.pop('PYTHONDONTWRITEBYTECODE', None)
    os.environ['PYTHONPYCACHEPREFIX'] = folder


class Commands:
    """``robot-sm`` commands in the benchmark's socket folder, through the daemon or not."""

    def __init__(self, daemons: PrivateDaemons,
                 wrap: Callable[[List[str]], List[str]] = lambda argv: argv,
                 env: Optional[Dict[str, str]] = None) -> None:
        self.daemons = daemons
        self._wrap = wrap
        self._env = env or {}

    def start(self, args: Sequence[str], way: str) -> Tuple[float, subprocess.Popen]:
        """Start ``robot-sm ARGS`` (``way``: daemon or direct); return when, and the process."""
        argv = self._wrap(robot_sm_command() + (['--no-daemon'] if way == 'direct' else [])
                          + list(args))
        began = time.monotonic()
        return began, subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                       text=True, env=self.daemons.full_env(self._env))

    def run(self, args: Sequence[str], way: str) -> Tuple[float, subprocess.CompletedProcess]:
        """Run ``robot-sm ARGS``; return its wall time and what it did."""
        began, process = self.start(args, way)
        stdout, stderr = process.communicate(timeout=START)
        took = time.monotonic() - began
        return took, subprocess.CompletedProcess(process.args, process.returncode, stdout, stderr)

    def ok(self, args: Sequence[str], way: str) -> float:
        """Run ``robot-sm ARGS``; return its wall time; raise if it failed or fell back."""
        took, result = self.run(args, way)
        if result.returncode != 0 or result.stderr:
            raise RuntimeError(f'robot-sm {" ".join(args)} ({way}) exited {result.returncode}:'
                               f'\n{result.stdout}{result.stderr}')
        return took


class Caller:
    """Service calls from the probe, each client made once (a new one must be matched first)."""

    def __init__(self, ros: RosHarness) -> None:
        self._ros = ros
        self._clients: Dict[str, Any] = {}

    def __call__(self, srv_type: Any, name: str, request: Any) -> Any:
        """Call ``name`` and return the answer."""
        client = self._clients.get(name)
        if client is None:
            client = self._clients[name] = self._ros.probe.create_client(
                srv_type, name, qos_profile=qos.SERVICES)
        if not wait_until(client.service_is_ready, START):
            raise TimeoutError(f'{name} is not available')
        future = client.call_async(request)
        if not wait_until(future.done, 10.0):
            raise TimeoutError(f'{name} did not answer')
        return future.result()


def pid_of(*words: str) -> int:
    """Return the pid of the process whose command line has every one of ``words``."""
    for path in pathlib.Path('/proc').glob('[0-9]*/cmdline'):
        try:
            command = path.read_bytes().split(b'\0')
        except OSError:
            continue
        if all(word.encode() in command for word in words):
            return int(path.parent.name)
    raise LookupError(f'no process runs {words}')


def start_suite(argv: Sequence[str], ready: Callable[[], bool]) -> NodeProcess:
    """Start ``robot-sm ARGV`` (``up ...``); return it once ``ready()``."""
    process = NodeProcess(robot_sm_command() + list(argv))
    if not wait_until(ready, START, interval=0.5):
        process.stop()
        raise TimeoutError(f'robot-sm {" ".join(argv)} did not start:\n{process.output[-3000:]}')
    return process


def alternating(counts: Dict[str, int]) -> Iterator[str]:
    """Yield the ways in turn, each first every other round, until each had its count."""
    left = dict(counts)
    for index in itertools.count():
        if not any(left.values()):
            return
        for way in (WAYS if index % 2 else WAYS[::-1]):
            if left[way]:
                left[way] -= 1
                yield way


def command_times(commands: Commands, call: Caller, samples: int) -> Dict[str, Any]:
    """Time status, waypoint list and estop on, through the daemon and not, alternating."""
    release = SetBool.Request(data=False)
    figures: Dict[str, Any] = {}
    for args in (['status'], ['waypoint', 'list'], ['estop', 'on']):
        times: Dict[str, List[float]] = {way: [] for way in WAYS}
        for way in alternating(dict.fromkeys(WAYS, samples)):
            times[way].append(commands.ok(args, way))
            if args[0] == 'estop':
                call(SetBool, 'robot_sm/emergency_stop', release)
        for way in WAYS:
            figures[f"{' '.join(args)}, {way}"] = summary(times[way], 1000.0)
        print(f"{' '.join(args)}: done", flush=True)
    return figures


def estop_to_zero(commands: Commands, ros: RosHarness, call: Caller,
                  samples: Dict[str, int]) -> Dict[str, Any]:
    """Time the start of ``robot-sm estop on`` to the first zero on cmd_vel (50 Hz autonomy)."""
    stream = ros.publisher(Twist, 'autonomy/cmd_vel', qos.COMMAND_OUT)
    driving = {'on': False}
    ros.probe.create_timer(0.02, lambda: driving['on'] and stream.publish(
        Twist(linear=Vector3(x=0.2))))
    cmd_vel = ros.record(Twist, 'cmd_vel', qos.EVENTS)
    autonomy = SetOperationMode.Request()
    autonomy.operation_mode = OperationMode(mode=OperationMode.AUTONOMOUS)
    times: Dict[str, List[float]] = {way: [] for way in WAYS}
    for way in alternating(samples):
        call(SetBool, 'robot_sm/emergency_stop', SetBool.Request(data=False))
        assert call(SetOperationMode, 'robot_sm/set_operation_mode', autonomy).success
        driving['on'] = True
        moving = time.monotonic()
        if not wait_until(lambda: any(m.linear.x > 0.0 for m in cmd_vel.since(moving)), 10.0):
            raise TimeoutError('the autonomy stream does not drive')
        began, process = commands.start(['estop', 'on'], way)
        if not wait_until(lambda: any(m.linear.x == 0.0 for m in cmd_vel.since(began)), START):
            raise TimeoutError('robot-sm estop on did not stop the robot')
        zero = next(t for t, m in cmd_vel.stamped if t >= began and m.linear.x == 0.0)
        times[way].append(zero - began)
        process.communicate(timeout=START)
        driving['on'] = False
    return {f'estop on → zero on cmd_vel, {way}': summary(times[way], 1000.0) for way in WAYS}


def fleet_stop(commands: Commands, ros: RosHarness, view: FleetClient, fleet: str,
               count: int, samples: Dict[str, int]) -> Dict[str, Any]:
    """Time ``robot-sm fleet estop on`` from its start to every robot showing the e-stop."""
    modes = {name: ros.record(OperationMode, f'{fleet}/{name}/robot_sm/operation_mode',
                              qos.STATE) for name in fleet_names(count)}
    times: Dict[str, List[float]] = {way: [] for way in WAYS}
    failed = dict.fromkeys(WAYS, 0)
    for way in alternating(samples):
        if not all(a.confirmed for a in view.emergency_stop(False)):
            raise RuntimeError('the fleet did not release its e-stops')
        began, process = commands.start(['--namespace', fleet, 'fleet', 'estop', 'on'], way)

        def shown(name: str) -> Optional[float]:
            return next((t for t, m in modes[name].stamped
                         if t >= began and m.emergency_stop), None)

        if wait_until(lambda: all(shown(name) is not None for name in modes), 30.0):
            times[way].append(max(shown(name) or 0.0 for name in modes) - began)
        stdout, stderr = process.communicate(timeout=START)
        if process.returncode != 0:  # a robot did not confirm within --timeout (5 s)
            failed[way] += 1
            print(f'fleet estop on ({way}) exited {process.returncode}:\n{stdout}{stderr}',
                  flush=True)
    figures: Dict[str, Any] = {}
    for way in WAYS:
        name = f'fleet estop on, {count} robots → all confirmed, {way}'
        figures[name] = {**summary(times[way], 1000.0), 'not_confirmed': failed[way]}
    return figures


def frozen_robot(commands: Commands, fleet: str) -> Dict[str, Any]:
    """Freeze robot2 (SIGSTOP); return what ``fleet estop on --expect 3`` says each way."""
    pid = pid_of(f'{fleet}/robot2', '--fleet-robot')
    os.kill(pid, signal.SIGSTOP)
    try:
        said = {}
        for way in WAYS:
            took, result = commands.run(['--namespace', fleet, '--timeout', '2', 'fleet',
                                         'estop', 'on', '--expect', '3'], way)
            said[way] = {'seconds': took, 'exit': result.returncode,
                         'output': result.stdout + result.stderr}
            print(f'frozen robot2, {way} ({took:.1f} s, exit {result.returncode}):\n'
                  f'{result.stdout}{result.stderr}', flush=True)
    finally:
        os.kill(pid, signal.SIGCONT)
    return said


def with_fleet(commands: Commands, count: int, samples: Dict[str, int]) -> Dict[str, Any]:
    """Start a simulated fleet of ``count``; return its stop times (and the frozen robot's)."""
    fleet = f'/fleet{count}'
    with FleetClient(within=fleet, timeout=10.0) as view:
        up = start_suite(['--namespace', fleet, 'up', '--sim', '--robots', str(count)],
                         lambda: len(view.robots()) == count and all(
                             s.state == 'Idle' for s in view.status(timeout=1.0)))
        ros = RosHarness(namespace='/')
        try:
            commands.ok(['--namespace', fleet, 'fleet', '--expect', str(count)], 'daemon')
            time.sleep(SETTLE_TIME)  # the daemon has followed the fleet for as long
            figures: Dict[str, Any] = fleet_stop(commands, ros, view, fleet, count, samples)
            if count == 3:
                view.emergency_stop(False)
                figures['frozen robot'] = frozen_robot(commands, fleet)
        finally:
            ros.shutdown()
            up.stop(timeout=20.0)
    return figures


def slow_link(samples: int, direct_samples: int) -> Dict[str, Any]:
    """Time ``robot-sm status`` from the operator host of the two-host rig over a slow link."""
    reason = unavailable_reason() or slow_link_unavailable_reason()
    if reason:
        print(f'slow link: skipped: {reason}', flush=True)
        return {}
    rig = TwoHostRig()
    daemons = PrivateDaemons()
    commands = Commands(daemons, wrap=lambda argv: rig.argv(OPERATOR, argv),
                        env=rig.env(OPERATOR))
    status = ['--timeout', '60', 'status']
    try:
        rig.start(ROBOT, robot_sm_command() + ['up', '--sim'])
        if not wait_until(lambda: commands.run(status, 'direct')[1].returncode == 0, START,
                          interval=1.0):
            raise TimeoutError('the operator host does not reach the suite')
        commands.ok(['daemon', 'start'], 'daemon')
        commands.ok(status, 'daemon')  # the daemon has met the suite before the link slows
        rig.slow_down()
        times: Dict[str, List[float]] = {
            'daemon': [commands.ok(status, 'daemon') for _ in range(samples)],
            'direct': [commands.ok(status, 'direct') for _ in range(direct_samples)]}
    finally:
        daemons.close(rig.argv(OPERATOR, robot_sm_command()))
        rig.close()
    return {f'status over a 256 kbit/s link, {way}': summary(times[way], 1000.0)
            for way in WAYS}


def single_suite(commands: Commands, samples: int, direct: int) -> Dict[str, Any]:
    """Run ``robot-sm up --sim``; return the command times and the e-stop to zero."""
    status = ['--timeout', '5', 'status']
    up = start_suite(['up', '--sim'], lambda: commands.run(status, 'direct')[1].returncode == 0)
    ros = RosHarness(namespace='/')
    call = Caller(ros)
    try:
        commands.ok(['daemon', 'start'], 'daemon')
        commands.ok(['status'], 'daemon')
        figures = command_times(commands, call, samples)
        figures.update(estop_to_zero(commands, ros, call,
                                     {'daemon': samples, 'direct': direct}))
        call(SetBool, 'robot_sm/emergency_stop', SetBool.Request(data=False))
    finally:
        ros.shutdown()
        up.stop(timeout=20.0)
    return figures


def print_report(report: Dict[str, Any]) -> None:
    """Print the figures so far as a table, and how much faster the daemon is."""
    rows = [{'measure': name, **{key: figures[key] for key in ('n', 'p50', 'p90', 'p99', 'max')}}
            for name, figures in report.items() if isinstance(figures, dict) and 'p50' in figures]
    print_table('robot-sm through its daemon and with --no-daemon (ms)', rows)
    for name in [row['measure'] for row in rows if row['measure'].endswith(', daemon')]:
        direct = report.get(name.replace(', daemon', ', direct'))
        if direct:
            print(f"{name[:-len(', daemon')]}: p50 {direct['p50'] / report[name]['p50']:.1f}x "
                  'faster through the daemon')
    print(f"saved {save('bench_cli', report)}", flush=True)


def main() -> int:
    """Measure every figure of the module's description; print and save them."""
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0].strip())
    parser.add_argument('--samples', type=int, default=50,
                        help='commands per figure through the daemon (and per command time '
                             'with --no-daemon)')
    parser.add_argument('--direct-samples', type=int, default=20,
                        help='e-stops to zero and fleet stops with --no-daemon')
    parser.add_argument('--fleet-samples', type=int, default=30,
                        help='fleet stops through the daemon')
    parser.add_argument('--robots', type=int, nargs='*', default=[3, 8])
    parser.add_argument('--slow-samples', type=int, nargs=2, default=[20, 3],
                        metavar=('DAEMON', 'DIRECT'), help='status over the slow link')
    options = parser.parse_args()
    private_ros_home()
    keep_bytecode()
    daemons = PrivateDaemons()
    commands = Commands(daemons)
    report: Dict[str, Any] = {'samples': options.samples,
                              'direct_samples': options.direct_samples,
                              'fleet_samples': options.fleet_samples}
    try:
        report.update(single_suite(commands, options.samples, options.direct_samples))
        print_report(report)
        for count in options.robots:
            report.update(with_fleet(commands, count, {'daemon': options.fleet_samples,
                                                       'direct': options.direct_samples}))
            print_report(report)
        report.update(slow_link(*options.slow_samples))
    finally:
        daemons.close(robot_sm_command())
    print_report(report)
    return 0


if __name__ == '__main__':
    sys.exit(main())
