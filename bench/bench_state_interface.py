"""
State interface: interrupt → state change latency, and tick jitter at 20 Hz and 100 Hz.

The mux, the service provider and the state interface run with this process as the operator.
For each ``update_frequency``:

- e-stop latency: ``robot_sm/emergency_stop`` call → ``Emergency Stop`` on
  ``robot_sm/state_info``, and release → ``Idle``; the baseline, measured in the same cycles,
  is the mux's own part: the call → its ``robot_sm/operation_mode`` message. The difference is
  what the state machine adds (it acts on the next tick: half a period on average);
- tick jitter: the spread of the intervals between the state machine's ticks while it runs
  (time stamped inside the tick), against a bare rclpy timer of the same rate in the same
  process as the baseline.

Run: ``tools/with_ros_env.sh python bench/bench_state_interface.py [--samples N]``.
"""

import argparse
import os
import pathlib
import random
import sys
import time
from typing import Any, Dict, List

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

from report import print_table, private_ros_home, save, summary  # noqa: E402
from robot_sm import qos  # noqa: E402
from robot_sm.nodes.robot_control_mux import RobotControlMux  # noqa: E402
from robot_sm.nodes.service_provider import ServiceProvider  # noqa: E402
from robot_sm.nodes.state_interface import StateInterface  # noqa: E402
from robot_sm.testing import RosHarness  # noqa: E402
from robot_sm_msgs.msg import OperationMode  # noqa: E402
from std_msgs.msg import String  # noqa: E402
from std_srvs.srv import SetBool  # noqa: E402


def intervals(stamps: List[float]) -> List[float]:
    return [b - a for a, b in zip(stamps, stamps[1:])]


def run(frequency: float, samples: int) -> Dict[str, Any]:
    ros = RosHarness(namespace=f'/bench_si_{os.getpid()}_{int(frequency)}')
    try:
        states = ros.record(String, 'robot_sm/state_info', qos.STATE)
        modes = ros.record(OperationMode, 'robot_sm/operation_mode', qos.STATE)
        ros.start_node(RobotControlMux)
        ros.start_node(ServiceProvider, {'waypoints_file': '', 'pose_source': 'topic'})
        node = ros.start_node(StateInterface, {'update_frequency': frequency})
        ticks: List[float] = []
        tick = node.machine.tick

        def stamped_tick() -> None:
            ticks.append(time.monotonic())
            tick()
        node._timer.callback = stamped_tick  # time stamp every tick of the running node
        bare: List[float] = []
        ros.probe.create_timer(1.0 / frequency, lambda: bare.append(time.monotonic()))
        states.wait_for(lambda m: m.data == 'Idle', timeout=10.0)
        engage: Dict[str, List[float]] = {'state': [], 'mux': []}
        release: Dict[str, List[float]] = {'state': [], 'mux': []}
        for _ in range(samples):
            for engaged, results in ((True, engage), (False, release)):
                time.sleep(random.uniform(0.05, 0.05 + 1.0 / frequency))
                target = 'Emergency Stop' if engaged else 'Idle'
                called = time.monotonic()
                ros.call(SetBool, 'robot_sm/emergency_stop', SetBool.Request(data=engaged))
                mode = modes.wait_for(lambda m: m.emergency_stop == engaged, after=called)
                assert mode is not None
                states.wait_for(lambda m: m.data == target, after=called, timeout=5.0)
                mode_at = next(t for t, m in reversed(modes.stamped)
                               if m.emergency_stop == engaged)
                state_at = next(t for t, m in reversed(states.stamped) if m.data == target)
                results['state'].append(state_at - called)
                results['mux'].append(mode_at - called)
        period = 1.0 / frequency
        return {
            'frequency': frequency,
            'engage_state_ms': summary(engage['state'], 1e3),
            'engage_mux_ms': summary(engage['mux'], 1e3),
            'release_state_ms': summary(release['state'], 1e3),
            'release_mux_ms': summary(release['mux'], 1e3),
            'tick_jitter_ms': summary([abs(i - period) for i in intervals(ticks[5:])], 1e3),
            'bare_timer_jitter_ms': summary([abs(i - period) for i in intervals(bare[5:])],
                                            1e3),
        }
    finally:
        ros.shutdown()


def main() -> int:
    private_ros_home()
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--samples', type=int, default=40)
    args = parser.parse_args()
    report = {'rates': [run(frequency, args.samples) for frequency in (20.0, 100.0)]}
    rows = []
    for result in report['rates']:
        hz = f"{result['frequency']:g} Hz"
        for key in ('engage_state_ms', 'engage_mux_ms', 'release_state_ms', 'release_mux_ms',
                    'tick_jitter_ms', 'bare_timer_jitter_ms'):
            rows.append({'rate': hz, 'measure': key, **result[key]})
        added = result['engage_state_ms']['p50'] - result['engage_mux_ms']['p50']
        result['engage_added_p50_ms'] = added
        rows.append({'rate': hz, 'measure': 'added by the state machine (p50, engage)',
                     'n': '', 'p50': added, 'p90': '', 'p99': '', 'max': ''})
    print_table('state interface (milliseconds)', rows)
    print(f"saved {save('state_interface', report)}")
    return 0


if __name__ == '__main__':
    sys.exit(main())
