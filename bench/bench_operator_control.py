"""
What one operator in control costs a command: the control check, the audit log, ``robot-sm mode``.

Every figure is taken beside its baseline in the same run, interleaved (so that both see the same
machine load):

1. **In the gateway's process** (no DDS in between), ``--core-samples`` calls each, in blocks
   taken in turn: ``ControlLease.check`` for the holder's command and for another operator's
   (refused), against the argument checks every command had before control
   (``gateway.request.checked``); the gateway's whole check-and-audit path of one command
   (``OperatorControl.check`` and ``OperatorControl.record``: the lease, the audit line appended
   and flushed, the entry published on ``robot_sm/audit``) against the same with ``audit_file:
   ''`` (published only); ``AuditLog.append`` (write and flush) against the same line written
   without a flush. Each call is timed by the wall clock and by the thread's CPU clock.
2. **A whole ``robot_sm/command`` round trip** from a ``SuiteClient`` to ``robot-sm up
   --no-recorder`` (a process of its own), ``--samples`` each, in turn: SELECT_MODE (needs
   control: checked, audited, forwarded to the mux, which switches STOPPED and AUTONOMOUS in
   turn), KEEP_CONTROL (the gateway and the lease, no audit line, no forward), against
   SELECT_MODE sent straight to the mux's own command service (``robot_sm/_mux/command``: no
   gateway, no check, no audit) and ``robot_sm/get_waypoints`` (the service provider; needs no
   control).
3. **``robot-sm mode autonomy``**, a new process each time, timed from its start as
   ``bench_cli.py`` times commands: through a private daemon (``--cli-samples``) and with
   ``--no-daemon`` (``--direct-samples``), alternating, and ``robot-sm status`` through the same
   daemon. The operator (``ROBOT_SM_OPERATOR=bench``) holds control, and the mux is put back to
   STOPPED (untimed) before each command.

Run: ``tools/with_ros_env.sh python bench/bench_operator_control.py [--samples N]``; results go
to ``bench/results/operator_control.json``.
"""

import argparse
import itertools
import os
import pathlib
import sys
import tempfile
import time
from typing import Any, Callable, Dict, List

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

from bench_cli import (  # noqa: E402
    alternating,
    Commands,
    keep_bytecode,
    robot_sm_command,
    start_suite,
    WAYS,
)
import rclpy  # noqa: E402
from rclpy.context import Context  # noqa: E402
from rclpy.node import Node  # noqa: E402
from report import print_table, private_ros_home, save, summary  # noqa: E402
from robot_sm.client import operator, SuiteClient, SuiteUnavailable  # noqa: E402
from robot_sm.contract import Code, COMMAND, Command, MUX_COMMAND  # noqa: E402
from robot_sm.gateway.audit import AuditLog, Record  # noqa: E402
from robot_sm.gateway.control import ControlLease  # noqa: E402
from robot_sm.gateway.request import arguments, checked, OperatorId, Request  # noqa: E402
from robot_sm.nodes.operator_control import OperatorControl  # noqa: E402
from robot_sm.testing import wait_until  # noqa: E402
from robot_sm.testing.private_daemons import PrivateDaemons  # noqa: E402
from robot_sm_msgs.srv import GetWaypoints  # noqa: E402

#: The operator of every command the benchmark gives (the CLI's through ROBOT_SM_OPERATOR).
OPERATOR = 'bench'
BLOCK = 500


def timed_blocks(calls: Dict[str, Callable[[], Any]],
                 samples: int) -> Dict[str, Dict[str, List[float]]]:
    """
    Call each of ``calls`` ``samples`` times in blocks taken in turn; return the seconds.

    Each call is timed twice: by the wall clock (what a command waits) and by the thread's CPU
    clock (the work itself, without the time the thread waited for a core on a loaded machine).
    """
    times: Dict[str, Dict[str, List[float]]] = {name: {'wall': [], 'cpu': []} for name in calls}
    wall, cpu = time.perf_counter, time.thread_time
    for _ in range(0, samples, BLOCK):
        for name, call in calls.items():
            walls, cpus = times[name]['wall'], times[name]['cpu']
            for _ in range(BLOCK):
                began, began_cpu = wall(), cpu()
                call()
                cpus.append(cpu() - began_cpu)
                walls.append(wall() - began)
    return times


def core_costs(samples: int) -> Dict[str, Any]:
    """Time the lease, the audit log and the gateway's check-and-audit path in this process."""
    holder = OperatorId(OPERATOR, 'python', 'bench-host')
    other = OperatorId('someone-else', 'cli', 'bench-host')
    lease = ControlLease()
    assert lease.check(holder, Command.SELECT_MODE, time.monotonic()).acquired
    request = checked(Request(command=int(Command.SELECT_MODE), by=holder, mode=1))
    record = Record(time.time(), 'command', OPERATOR, 'python', 'bench-host', 'select_mode',
                    arguments(request), True, 'done', 'mode AUTONOMOUS')
    folder = tempfile.mkdtemp(prefix='robot_sm-bench-audit-')
    log = AuditLog(os.path.join(folder, 'lease', 'audit.jsonl'), max_bytes=1 << 30)
    unflushed = open(os.path.join(folder, 'unflushed.jsonl'), 'a', encoding='utf-8')
    context = Context()
    rclpy.init(context=context)
    node = Node('bench_operator_control', namespace='/bench_core', context=context)
    settings = {'control_idle_timeout': 60.0, 'control_raw_ros_open': False,
                'audit_max_bytes': 1 << 30, 'audit_files': 2}
    controls = {with_file: OperatorControl(node, {**settings, 'audit_file': os.path.join(
        folder, 'node', 'audit.jsonl') if with_file else ''}) for with_file in (True, False)}
    for control in controls.values():
        assert control.check(holder, Command.SELECT_MODE).acquired

    def gateway_path(control: OperatorControl) -> Callable[[], None]:
        def run() -> None:  # what CommandGateway.execute adds to a command that needs control
            decision = control.check(holder, Command.SELECT_MODE)
            assert decision.allowed
            control.record('command', holder, 'select_mode', arguments(request), True,
                           Code.DONE, 'mode AUTONOMOUS')
        return run

    try:
        times = timed_blocks({
            'ControlLease.check, the holder': lambda: lease.check(
                holder, Command.SELECT_MODE, time.monotonic()),
            'ControlLease.check, another operator (refused)': lambda: lease.check(
                other, Command.SELECT_MODE, time.monotonic()),
            'baseline: request.checked (the argument checks)': lambda: checked(request),
            'check and audit (file flushed, published)': gateway_path(controls[True]),
            "baseline: check and publish, audit_file ''": gateway_path(controls[False]),
            'AuditLog.append (write, flush)': lambda: log.append(record),
            'baseline: the same line written, no flush': lambda: unflushed.write(
                record.line() + '\n'),
        }, samples)
    finally:
        log.close()
        unflushed.close()
        for control in controls.values():
            control.close()
        node.destroy_node()
        rclpy.shutdown(context=context)
    figures = {name: summary(values['wall'], 1e6) for name, values in times.items()}
    figures.update({f'{name} (thread CPU time)': summary(values['cpu'], 1e6)
                    for name, values in times.items()})
    return figures


def round_trips(client: SuiteClient, samples: int) -> Dict[str, Any]:
    """Time robot_sm/command (SELECT_MODE, KEEP_CONTROL) against two baselines."""
    modes = itertools.cycle((0, 1))  # every SELECT_MODE changes the mode

    def select_mode(service: str) -> Callable[[], None]:
        def run() -> None:
            result = client.command(Command.SELECT_MODE, service=service, mode=next(modes))
            assert result.success, result.message
        return run

    def keep() -> None:
        result = client.keep_control()
        assert result.success, result.message

    calls = {'robot_sm/command SELECT_MODE (needs control: checked, audited, forwarded)':
             select_mode(COMMAND),
             'robot_sm/command KEEP_CONTROL (the lease only)': keep,
             'baseline: robot_sm/_mux/command SELECT_MODE (straight to the mux)':
             select_mode(MUX_COMMAND),
             'baseline: robot_sm/get_waypoints (needs no control)':
             lambda: client.call(GetWaypoints, 'robot_sm/get_waypoints')}
    for call in calls.values():  # every client made and matched before timing
        call()
    times: Dict[str, List[float]] = {name: [] for name in calls}
    names = list(calls)
    for index in range(samples):
        for name in names[index % len(names):] + names[:index % len(names)]:
            began = time.perf_counter()
            calls[name]()
            times[name].append(time.perf_counter() - began)
    return {name: summary(values, 1000.0) for name, values in times.items()}


def cli_mode(commands: Commands, client: SuiteClient, samples: int,
             direct: int) -> Dict[str, Any]:
    """Time ``robot-sm mode autonomy`` through the daemon and not, and ``status``."""
    times: Dict[str, List[float]] = {way: [] for way in WAYS}
    status: List[float] = []
    commands.ok(['daemon', 'start'], 'daemon')
    commands.ok(['status'], 'daemon')
    for way in alternating({'daemon': samples, 'direct': direct}):
        stopped = client.set_mode('stopped')
        assert stopped.success, stopped.message
        times[way].append(commands.ok(['mode', 'autonomy'], way))
        if way == 'daemon':
            status.append(commands.ok(['status'], way))
    client.set_mode('stopped')
    figures = {f'robot-sm mode autonomy, {way}': summary(times[way], 1000.0) for way in WAYS}
    figures['baseline: robot-sm status, daemon'] = summary(status, 1000.0)
    return figures


def suite_costs(samples: int, cli_samples: int, direct: int) -> Dict[str, Any]:
    """Run ``robot-sm up --no-recorder``; time the round trips and ``robot-sm mode``."""
    daemons = PrivateDaemons()
    commands = Commands(daemons, env={'ROBOT_SM_OPERATOR': OPERATOR})
    client = SuiteClient(timeout=10.0, by=operator(OPERATOR, 'python'))

    def idle() -> bool:
        try:
            return client.state().message == 'Idle'
        except SuiteUnavailable:
            return False

    up = start_suite(['up', '--no-recorder'], idle)
    try:
        taken = client.take_control()
        assert taken.success, taken.message
        if not wait_until(lambda: client.set_mode('autonomy').success, 60.0, interval=0.5):
            refused = client.set_mode('autonomy').message
            raise TimeoutError(f'the mux refuses AUTONOMOUS: {refused}')
        figures = round_trips(client, samples)
        print_report('robot_sm/command round trips from a SuiteClient (ms)', figures)
        figures.update(cli_mode(commands, client, cli_samples, direct))
    finally:
        daemons.close(robot_sm_command())
        client.close()
        up.stop(timeout=20.0)
    return figures


def print_report(title: str, figures: Dict[str, Any]) -> None:
    """Print ``figures`` (name: summary) as a table."""
    print_table(title, [{'measure': name, **{key: values[key] for key in (
        'n', 'p50', 'p90', 'p99', 'max')}} for name, values in figures.items()])


def main() -> int:
    """Measure every figure of the module's description; print and save them."""
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0].strip())
    parser.add_argument('--core-samples', type=int, default=20000,
                        help='calls per figure in the gateway process')
    parser.add_argument('--samples', type=int, default=300,
                        help='round trips per command')
    parser.add_argument('--cli-samples', type=int, default=50,
                        help='robot-sm mode commands through the daemon')
    parser.add_argument('--direct-samples', type=int, default=20,
                        help='robot-sm mode commands with --no-daemon')
    options = parser.parse_args()
    private_ros_home()
    keep_bytecode()
    report: Dict[str, Any] = {'load_before': os.getloadavg()}
    core = core_costs(options.core_samples)
    print_report('in the gateway process (µs)', core)
    report['core_us'] = core
    suite = suite_costs(options.samples, options.cli_samples, options.direct_samples)
    report['suite_ms'] = suite
    report['load_after'] = os.getloadavg()
    print_report('robot_sm/command round trips and robot-sm mode (ms)', suite)
    print(f"load average before {report['load_before'][0]:.1f}, after "
          f"{report['load_after'][0]:.1f}")
    print(f"saved {save('operator_control', report)}", flush=True)
    return 0


if __name__ == '__main__':
    sys.exit(main())
