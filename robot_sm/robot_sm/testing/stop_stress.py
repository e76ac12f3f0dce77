"""
Start and stop every process of the suite again and again, with signals at random moments.

Each cycle starts one process (a node's executable as ``ros2 run`` and the launch files start it,
or ``robot-sm web``), waits a random time, sends it SIGINT or SIGTERM, and records how long it
took to end, its exit code and whether it printed a traceback. The time counts from the moment
the process takes both signals (its first lines of code: :func:`takes_stop_signals`; before
that the interpreter itself starts, and the operating system's default applies), so a signal may
come while it imports rclpy, while the node is made, or while it runs.
A process still running :data:`STOP_LIMIT` after the signal is a hang: it is killed and counted.
``test/test_stop_signals.py`` runs a few cycles of each; ``bench/bench_stop.py`` runs 50 of each
with a core kept busy.
"""

from dataclasses import dataclass, field
import pathlib
import random
import signal
import time
from typing import Dict, List, Optional, Sequence

from robot_sm.testing.node_process import NodeProcess, ros_args

#: What every process promises: it ends within this many seconds of SIGINT or SIGTERM.
STOP_LIMIT = 2.0

#: The processes, by name: the node executables (with fast timers, so that callbacks run when
#: the signal comes) and the web console.
PROCESSES: Dict[str, Dict[str, object]] = {
    'robot_control_mux': {'update_frequency': 200.0, 'emergency_stop_file': ''},
    'service_provider': {'waypoints_file': ''},
    'state_interface': {'update_frequency': 200.0},
    'base_controller': {},
    'robot_sim': {'world': 'office', 'update_frequency': 200.0, 'sensor_frequency': 50.0},
    'teleop_retargeting': {},
    'xr_replay': {},
    'topic_recorder': {},
    'incident_recorder': {},
    'web': {},
}


def executable(name: str) -> str:
    """Return the installed executable ``name`` of robot_sm (what ``ros2 run`` starts)."""
    from ament_index_python.packages import get_package_prefix
    return str(pathlib.Path(get_package_prefix('robot_sm')) / 'lib' / 'robot_sm' / name)


def command(name: str, namespace: str, folder: str) -> List[str]:
    """Return the command line that starts process ``name`` in ``namespace``."""
    if name == 'web':
        return [executable('robot-sm'), '--namespace', namespace, 'web', '--port', '0']
    parameters = dict(PROCESSES[name])
    if name == 'topic_recorder':
        parameters['output'] = f'{folder}/recording-{time.monotonic_ns()}.mcap'
    if name == 'incident_recorder':
        parameters['directory'] = f'{folder}/incidents-{time.monotonic_ns()}'
    return [executable(name), *ros_args(namespace, parameters)]


def takes_stop_signals(pid: int) -> bool:
    """Return whether process ``pid`` catches both SIGINT and SIGTERM (/proc's SigCgt)."""
    try:
        with open(f'/proc/{pid}/status', encoding='ascii') as status:
            caught = next(int(line.split()[1], 16) for line in status
                          if line.startswith('SigCgt:'))
    except (OSError, StopIteration):
        return False
    return all(caught & (1 << (sig - 1)) for sig in (signal.SIGINT, signal.SIGTERM))


@dataclass
class Cycle:
    """One start and stop of a process."""

    name: str
    signal_name: str
    #: Seconds from the start to the signal.
    delay: float
    #: Seconds from the signal to the end (None: it hung and was killed).
    seconds: Optional[float]
    exit_code: Optional[int]
    traceback: bool
    output: str = field(default='', repr=False)

    @property
    def failed(self) -> bool:
        """Return True for a hang, an exit code other than 0, or a traceback."""
        return self.seconds is None or self.exit_code != 0 or self.traceback

    def describe(self) -> str:
        """Say what happened, with the end of the output when it failed."""
        ended = (f'did not end within {STOP_LIMIT:g} s (killed)' if self.seconds is None
                 else f'ended in {self.seconds:.2f} s with exit code {self.exit_code}')
        text = f'{self.name}: {self.signal_name} {self.delay:.2f} s after the start {ended}'
        if self.failed:
            text += ('; it printed a traceback' if self.traceback else '') + '\n' + \
                self.output[-3000:]
        return text


def cycle(name: str, namespace: str, folder: str, delay: float, sig: int,
          limit: float = STOP_LIMIT) -> Cycle:
    """Start ``name``, signal it ``sig`` after ``delay`` s, and see how it ends."""
    # A hang is shown where it hangs: SIGABRT makes faulthandler print every thread's stack.
    process = NodeProcess(command(name, namespace, folder), env={'PYTHONFAULTHANDLER': '1'})
    try:
        deadline = time.monotonic() + 30.0
        while not takes_stop_signals(process.pid) and time.monotonic() < deadline:
            time.sleep(0.001)
        time.sleep(delay)
        sent = time.monotonic()
        process.process.send_signal(sig)
        code = process.wait(limit)
        seconds = None if code is None else time.monotonic() - sent
        if code is None:
            process.show_stacks()
    finally:
        process.stop(timeout=0.0)
    output = process.output
    return Cycle(name, signal.Signals(sig).name, delay, seconds,
                 code if seconds is not None else None,
                 'Traceback (most recent call last)' in output
                 or 'Exception in thread' in output, output)


def cycles(names: Sequence[str], count: int, namespace: str, folder: str,
           longest_delay: float = 3.0, seed: Optional[int] = None) -> List[Cycle]:
    """
    Run ``count`` cycles of each process of ``names``, in a shuffled order.

    Signals alternate between SIGINT and SIGTERM; each comes after a random delay of up to
    ``longest_delay`` s (a third of them within the first half second: during the start).
    """
    chooser = random.Random(seed)
    plan = [(name, index) for name in names for index in range(count)]
    chooser.shuffle(plan)
    done = []
    for name, index in plan:
        sig = signal.SIGINT if index % 2 == 0 else signal.SIGTERM
        delay = (chooser.uniform(0.0, 0.5) if chooser.random() < 1 / 3
                 else chooser.uniform(0.5, longest_delay))
        done.append(cycle(name, namespace, folder, delay, sig))
    return done
