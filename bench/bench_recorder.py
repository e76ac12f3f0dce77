"""
The incident recorder's cost, against baselines measured in the same run.

1. At the suite's normal rates: ``robot-sm up --sim --no-recorder`` with the robot patrolling the
   office, the recorder (its defaults: 30 s, 64 MiB) and, as the baseline, a bare rclpy node that
   subscribes to the same topics and only counts, each in a process of its own. Their CPU (share
   of one core, from ``/proc``) and memory (resident set, peak) over the same seconds.
2. Messages lost in the ring: a snapshot's MCAP file against a plain subscriber in this process,
   topic by topic, over the same interval (the file's window, less half a second at each end).
3. The mux's e-stop → first zero on ``cmd_vel`` while a 50 Hz autonomy stream drives it, in
   blocks without and with the recorder running beside it (each e-stop is an incident).

Run: ``tools/with_ros_env.sh python bench/bench_recorder.py [--seconds S] [--estops N]``.
"""

import argparse
import os
import pathlib
import random
import sys
import time
from typing import Any, Dict, List, Set

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

from bench_mux import call, carrying, command, mode_request, Target  # noqa: E402
from rclpy.node import Node  # noqa: E402
from report import print_table, private_ros_home, save, summary  # noqa: E402
from robot_sm.client import SuiteClient  # noqa: E402
from robot_sm.nodes.incident_recorder import INCIDENT_TOPICS, SNAPSHOT  # noqa: E402
from robot_sm.nodes.recorded_topics import found_topic  # noqa: E402
from robot_sm.nodes.runner import run_node  # noqa: E402
from robot_sm.recording.incident_files import IncidentFolder  # noqa: E402
from robot_sm.recording.mcap_read import read_messages  # noqa: E402
from robot_sm.testing import NodeProcess, python_module_argv, RosHarness, wait_until  # noqa: E402
from robot_sm_msgs.msg import OperationMode  # noqa: E402
from robot_sm_msgs.srv import SetOperationMode  # noqa: E402
from std_srvs.srv import SetBool, Trigger  # noqa: E402

NAMESPACE = f'/bench_recorder_{os.getpid()}'
TICKS = os.sysconf('SC_CLK_TCK')


class PlainSubscriber(Node):
    """The baseline: subscribe to the recorder's topics as it does, and only count."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__('plain_subscriber', **kwargs)
        prefix = self.get_namespace().rstrip('/') + '/'
        self.wanted = {t if t.startswith('/') else prefix + t for t in INCIDENT_TOPICS}
        self.counts: Dict[str, int] = {}
        self.stamps: Dict[str, List[int]] = {}
        self._kept: Set[str] = set()
        self.create_timer(1.0, self.discover)

    def discover(self) -> None:
        """Subscribe to the wanted topics with publishers, as the recorder does."""
        for topic, types in self.get_topic_names_and_types():
            if topic in self.wanted and topic not in self._kept:
                found = found_topic(self, topic, types[0])
                if found is not None:
                    self._kept.add(topic)
                    self.stamps[topic] = []
                    self.create_subscription(found.message_class, topic, self._counter(topic),
                                             found.qos, raw=True)

    def _counter(self, topic: str) -> Any:
        stamps, clock = self.stamps[topic], self.get_clock()
        return lambda _: stamps.append(clock.now().nanoseconds)


def cpu_seconds(pid: int) -> float:
    """Return the CPU time (user + system, s) process ``pid`` used so far."""
    with open(f'/proc/{pid}/stat') as stat:
        fields = stat.read().rpartition(')')[2].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


def memory_mib(pid: int) -> Dict[str, float]:
    """Return the resident set and its peak (MiB) of process ``pid``."""
    values = {}
    with open(f'/proc/{pid}/status') as status:
        for line in status:
            name, _, value = line.partition(':')
            if name in ('VmRSS', 'VmHWM'):
                values[name] = int(value.split()[0]) / 1024.0
    return {'rss_mib': values['VmRSS'], 'peak_mib': values['VmHWM']}


def patrol(ros: RosHarness, seconds: float, home: pathlib.Path) -> Dict[str, Any]:
    """Part 1 and 2: CPU and memory at the suite's rates, and messages lost in the ring."""
    namespace = f'{ros.namespace}/patrol'
    folder = home / 'incidents'
    ros.start_process([sys.executable, '-m', 'robot_sm.frontends.cli', '--namespace', namespace,
                       'up', '--sim', '--no-recorder'])
    client = SuiteClient(namespace=namespace, timeout=30.0, context=ros.context)
    client.wait_for_state('Idle', timeout=60.0)
    for x, y in ((1.3, 4.8), (6.6, 1.4)):
        client.add_waypoint(x, y)
    assert client.set_mode('autonomy').success
    assert client.start_waypoint_following('patrol').success
    recorder = ros.start_process([*python_module_argv('robot_sm.nodes.incident_recorder'),
                                  '--ros-args', '-r', f'__ns:={namespace}',
                                  '-p', f'directory:={folder}'])
    plain = ros.start_process([sys.executable, __file__, 'plain', '--ros-args',
                               '-r', f'__ns:={namespace}'])
    reference = PlainSubscriber(context=ros.context, namespace=namespace)
    ros.add_node(reference)
    time.sleep(40.0)   # the ring fills its 30 s window
    before = {name: cpu_seconds(p.pid) for name, p in (('recorder', recorder), ('plain', plain))}
    started = time.monotonic()
    time.sleep(seconds)
    elapsed = time.monotonic() - started
    figures: Dict[str, Any] = {}
    for name, process in (('recorder', recorder), ('plain', plain)):
        figures[name] = {'cpu_percent': 100.0 * (cpu_seconds(process.pid) - before[name]) /
                         elapsed, **memory_mib(process.pid)}
    figures['lost'] = lost_in_the_ring(ros, reference, IncidentFolder(folder))
    client.close()
    return figures


def lost_in_the_ring(ros: RosHarness, reference: PlainSubscriber,
                     folder: IncidentFolder) -> Dict[str, Any]:
    """Snapshot; count each topic's messages in the file against the plain subscriber's."""
    answer = ros.call(Trigger, f'{reference.get_namespace()}/{SNAPSHOT}', timeout=30.0)
    assert answer.success, answer.message
    assert wait_until(lambda: bool(folder.records()), 30.0), 'no snapshot written'
    record = folder.records()[-1]
    messages = read_messages(record.mcap)
    trigger = int(record.stamp * 1e9)
    start = trigger - int((record.before - 0.5) * 1e9)
    end = trigger - int(0.5e9)
    per_topic = {}
    slack = int(0.02e9)   # the two subscribers receive a message at slightly different times
    for topic, stamps in reference.stamps.items():
        expected = sum(start <= t <= end for t in stamps)
        kept = sum(start - slack <= t <= end + slack for t, _ in messages.get(topic, []))
        within = sum(start + slack <= t <= end - slack for t, _ in messages.get(topic, []))
        per_topic[topic] = {'plain': expected, 'ring': kept, 'ring_within': within}
    # Lost: fewer in the ring's wider interval than the plain subscriber saw; extra: more in its
    # narrower one (neither should happen).
    return {'window_s': (end - start) * 1e-9,
            'messages': sum(v['plain'] for v in per_topic.values()),
            'lost': sum(max(0, v['plain'] - v['ring']) for v in per_topic.values()),
            'extra': sum(max(0, v['ring_within'] - v['plain']) for v in per_topic.values()),
            'topics': per_topic}


def estop_latency(ros: RosHarness, home: pathlib.Path, blocks: int,
                  per_block: int) -> Dict[str, List[float]]:
    """Part 3: the mux's e-stop → first zero, in blocks without and with the recorder."""
    namespace = f'{ros.namespace}/mux'
    ros.start_process([*python_module_argv('robot_sm.nodes.robot_control_mux'), '--ros-args',
                       '-r', f'__ns:={namespace}', '-p', "emergency_stop_file:=''"])
    target = Target(ros, 'mux')
    mode = ros.probe.create_client(SetOperationMode, 'mux/robot_sm/set_operation_mode')
    ros.wait_for_subscribers(target.command, timeout=30.0)
    assert target.estop.wait_for_service(timeout_sec=30.0)
    assert mode.wait_for_service(timeout_sec=30.0)
    streaming = ros.probe.create_timer(0.02, lambda: target.command.publish(command(0.5)))
    results: Dict[str, List[float]] = {'without': [], 'with': []}
    for block in range(blocks):
        kind = ('without', 'with')[block % 2]
        recorder = None
        if kind == 'with':
            recorder = NodeProcess([*python_module_argv('robot_sm.nodes.incident_recorder'),
                                    '--ros-args', '-r', f'__ns:={namespace}',
                                    '-p', f'directory:={home / "mux_incidents"}'])
            assert wait_until(lambda: 'cmd_vel' in recorder.output.partition('keeping')[2],
                              30.0), recorder.output
            time.sleep(5.0)   # a ring with something in it
        for _ in range(per_block):
            call(mode, mode_request(OperationMode.AUTONOMOUS))
            target.expect(carrying(0.5))
            target.wait()
            time.sleep(random.uniform(0.0, 0.02))
            target.expect(carrying(0.0))
            called = time.monotonic()
            call(target.estop, SetBool.Request(data=True))
            results[kind].append(target.wait() - called)
            assert call(target.estop, SetBool.Request(data=False)).success
        if recorder is not None:
            recorder.stop(timeout=15.0)
    streaming.cancel()
    return results


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[1])
    parser.add_argument('--seconds', type=float, default=30.0, help='CPU measured over (s)')
    parser.add_argument('--estops', type=int, default=50, help='e-stops per block')
    parser.add_argument('--blocks', type=int, default=4, help='blocks, without and with')
    options = parser.parse_args()
    home = pathlib.Path(private_ros_home())
    ros = RosHarness(namespace=NAMESPACE)
    try:
        costs = patrol(ros, options.seconds, home)
        estops = estop_latency(ros, home, options.blocks, options.estops)
    finally:
        ros.shutdown()
    report: Dict[str, Any] = {'seconds': options.seconds, **costs}
    rows = [{'process': name, **{k: round(v, 2) for k, v in costs[name].items()}}
            for name in ('recorder', 'plain')]
    print_table('CPU (% of one core) and memory (MiB), robot patrolling', rows)
    lost = costs['lost']
    print(f"messages lost in the ring: {lost['lost']} of {lost['messages']} over "
          f"{lost['window_s']:.1f} s (goal 0; in the ring and not seen by the plain subscriber: "
          f"{lost['extra']})")
    rows = []
    for kind in ('without', 'with'):
        report[f'estop_zero_{kind}_ms'] = stats = summary(estops[kind], 1000.0)
        rows.append({'mux e-stop → first zero (ms)': f'{kind} the recorder', **stats})
    print_table('e-stop latency of the mux, in alternating blocks', rows)
    recorder, plain = costs['recorder'], costs['plain']
    print(f"recorder: CPU {recorder['cpu_percent']:.1f} % of a core (plain subscriber "
          f"{plain['cpu_percent']:.1f} %; goal 5 %), resident {recorder['rss_mib']:.1f} MiB "
          f"(plain {plain['rss_mib']:.1f} MiB; goal: the ring within 64 MiB); e-stop p99 "
          f"{report['estop_zero_with_ms']['p99']:.2f} ms with, "
          f"{report['estop_zero_without_ms']['p99']:.2f} ms without")
    print(f"saved {save('bench_recorder', report)}")
    return 0


if __name__ == '__main__':
    if len(sys.argv) > 1 and sys.argv[1] == 'plain':
        sys.exit(run_node(PlainSubscriber, sys.argv[2:]))
    sys.exit(main())
