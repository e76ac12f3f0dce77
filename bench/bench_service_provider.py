"""
Benchmark the service provider: service round trips over DDS and the cost of saving.

1. Round-trip latency of service_provider calls from a client node in the same process (each
   node on its own executor thread, DDS on loopback), against a trivial std_srvs/Trigger server
   measured in the same run: reads (get_waypoints with 10 and 200 waypoints), and a change
   (move_waypoint) with the list saved to a file on every change (temporary file, fsync, rename)
   and with saving switched off.
2. The atomic save alone (WaypointFile.save) for 10, 100 and 1,000 waypoints.

Run with ``tools/with_ros_env.sh python bench/bench_service_provider.py``; results go to
``bench/results/service_provider.json``.
"""

import pathlib
import platform
import shutil
import tempfile
import threading
import time
from typing import Any, Callable, Dict, List

from geometry_msgs.msg import Point, Pose, Quaternion
from rclpy.node import Node
from rclpy.parameter import Parameter
from report import print_table, save, summary
from robot_sm.nodes.service_provider import ServiceProvider
from robot_sm.testing import RosHarness
from robot_sm.waypoints import DataStore, Pose as CorePose, WaypointFile
from robot_sm_msgs.msg import Waypoint
from robot_sm_msgs.srv import AddWaypoint, GetWaypoints, MoveWaypoint
from std_srvs.srv import Trigger

CALLS = 2000
NAMESPACE = '/bench_service_provider'


def timed_calls(client: Any, make_request: Callable[[int], Any], calls: int) -> List[float]:
    """Return the round-trip times (s) of ``calls`` calls, after a warm-up."""
    assert client.wait_for_service(timeout_sec=10.0), client.srv_name
    samples = []
    for i in range(-50, calls):
        done = threading.Event()
        start = time.perf_counter()
        future = client.call_async(make_request(i))
        future.add_done_callback(lambda _: done.set())
        assert done.wait(10.0), f'{client.srv_name} did not answer'
        if i >= 0:
            samples.append(time.perf_counter() - start)
    return samples


def provider(ros: RosHarness, namespace: str, waypoints_file: str) -> ServiceProvider:
    node = ServiceProvider(context=ros.context, namespace=namespace, parameter_overrides=[
        Parameter('waypoints_file', value=waypoints_file)])
    ros.add_node(node)
    return node


def fill(ros: RosHarness, namespace: str, count: int) -> None:
    client = ros.probe.create_client(AddWaypoint, f'{namespace}/robot_sm/add_waypoint')
    assert client.wait_for_service(timeout_sec=10.0)
    for i in range(count):
        request = AddWaypoint.Request(position=-1, waypoint=Waypoint(pose=Pose(
            position=Point(x=float(i)), orientation=Quaternion(w=1.0))))
        done = threading.Event()
        client.call_async(request).add_done_callback(lambda _: done.set())
        assert done.wait(10.0)
    ros.probe.destroy_client(client)


def bench_round_trips(directory: pathlib.Path) -> List[Dict[str, Any]]:
    ros = RosHarness(NAMESPACE)
    try:
        trivial = Node('trivial', namespace=NAMESPACE, context=ros.context)
        trivial.create_service(Trigger, 'trivial', lambda _, response: response)
        ros.add_node(trivial)
        saved_ns, unsaved_ns, large_ns = (f'{NAMESPACE}/saved', f'{NAMESPACE}/unsaved',
                                          f'{NAMESPACE}/large')
        provider(ros, saved_ns, str(directory / 'saved.yaml'))
        provider(ros, unsaved_ns, '')
        provider(ros, large_ns, '')
        for namespace, count in ((saved_ns, 10), (unsaved_ns, 10), (large_ns, 200)):
            fill(ros, namespace, count)

        def client(srv: Any, name: str) -> Any:
            return ros.probe.create_client(srv, name)

        def move(i: int) -> Any:
            return MoveWaypoint.Request(position=i % 10, pose=Pose(
                position=Point(x=float(i)), orientation=Quaternion(w=1.0)))

        cases = [
            ('Trigger, trivial server (baseline)', client(Trigger, f'{NAMESPACE}/trivial'),
             lambda i: Trigger.Request()),
            ('get_waypoints, 10 waypoints', client(GetWaypoints, f'{saved_ns}/robot_sm/'
                                                   'get_waypoints'),
             lambda i: GetWaypoints.Request()),
            ('get_waypoints, 200 waypoints', client(GetWaypoints, f'{large_ns}/robot_sm/'
                                                    'get_waypoints'),
             lambda i: GetWaypoints.Request()),
            ('move_waypoint, not saved', client(MoveWaypoint, f'{unsaved_ns}/robot_sm/'
                                                'move_waypoint'), move),
            ('move_waypoint, saved (fsync)', client(MoveWaypoint, f'{saved_ns}/robot_sm/'
                                                    'move_waypoint'), move),
        ]
        rows = []
        baseline = None
        for name, service_client, make_request in cases:
            times = summary(timed_calls(service_client, make_request, CALLS), 1e3)
            baseline = baseline or times['p50']
            rows.append({'call': name, 'p50_ms': times['p50'], 'p90_ms': times['p90'],
                         'p99_ms': times['p99'], 'vs_trigger_p50': times['p50'] / baseline})
        return rows
    finally:
        ros.shutdown()


def bench_save(directory: pathlib.Path) -> List[Dict[str, Any]]:
    rows = []
    for count in (10, 100, 1000):
        store = DataStore()
        for i in range(count):
            store.add_waypoint(CorePose(x=float(i), y=0.5 * i), '', -1)
        file = WaypointFile(directory / f'save_{count}.yaml')
        samples = []
        for _ in range(max(20, 2000 // count)):
            start = time.perf_counter()
            file.save(store.waypoints)
            samples.append(time.perf_counter() - start)
        times = summary(samples, 1e3)
        rows.append({'waypoints': count, 'save_p50_ms': times['p50'], 'save_p99_ms': times['p99'],
                     'file_kB': file.path.stat().st_size / 1e3})
    return rows


def main() -> None:
    directory = pathlib.Path(tempfile.mkdtemp(prefix='bench-service-provider-'))
    try:
        round_trips = bench_round_trips(directory)
        print_table(f'service_provider round trips over DDS ({CALLS} calls each, ms)',
                    round_trips)
        saves = bench_save(directory)
        print_table('WaypointFile.save: temporary file + fsync + rename (ms)', saves)
    finally:
        shutil.rmtree(directory, ignore_errors=True)
    path = save('service_provider', {
        'machine': {'python': platform.python_version(), 'processor': platform.machine()},
        'round_trips': round_trips, 'save': saves,
    })
    print(f'saved {path}')


if __name__ == '__main__':
    main()
