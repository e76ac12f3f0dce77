"""``robot-sm up``: the suite, with the simulation, teleop or a simulated fleet, in one process."""

import pathlib
import signal
import subprocess
import sys
import threading
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

from robot_sm.bringup.environment import discovery_server_problem, use_discovery_server
from robot_sm.bringup.parameter_files import ParameterFileError, shipped_parameter_files
from robot_sm.bringup.recorder_process import RecorderProcess, up_child
from robot_sm.bringup.suite_nodes import (
    fleet_names,
    join_namespace,
    NodeSpec,
    ROBOT_NODES,
    SIMULATION,
    SIMULATOR,
    SUITE,
    TELEOP,
    web_console_arguments,
)
from robot_sm.bringup.suite_process import SuiteProcess


#: Seconds the robots of a simulated fleet get to stop after a signal before they are killed.
FLEET_STOP_TIMEOUT = 10.0


def run_up(sim: bool, world: Optional[str], parameter_files: Sequence[pathlib.Path],
           namespace: str = '', teleop: bool = False, remote: bool = False,
           robots: Optional[int] = None, discovery_server: str = '',
           fleet_robot: bool = False, web_port: Optional[int] = None,
           recorder: bool = True) -> int:
    """
    Run the suite (with the simulation, with teleop) until SIGINT or SIGTERM; return exit code.

    The shipped parameter files are loaded first (with ``remote``, ``config/remote.yaml`` after
    the others), then ``parameter_files`` in order. With ``robots`` (and ``sim``) it runs a
    simulated fleet: robot_sim for all of them in this process, and each robot's suite with its
    base_controller in ``namespace/robot1`` ... ``robotN``, each in a process of its own (as
    on a robot of its own: its own DDS participant, its own share of the cores), started as
    ``robot-sm up --sim`` with ``fleet_robot``. With ``discovery_server`` (``HOST:PORT``) every
    node is a client of that Fast DDS discovery server. With ``web_port`` the web operator
    console serves the suite (the first robot of a fleet) on that port, from a process of its
    own (``robot-sm web``), so that the page's load never holds up the nodes. With ``recorder``
    the incident recorder of the suite (of each robot of a fleet) runs in a process of its own
    too (:mod:`robot_sm.bringup.recorder_process`). Returns 0
    when stopped by a signal, 2 (after one line on stderr saying why) when a world, a parameter
    file or a parameter cannot be used, 1 when a node (or a robot's process) stops on an error
    while running.
    """
    from robot_sm.parameters import ConfigurationError
    problem = _problem(sim, world, robots, teleop, discovery_server, web_port)
    if problem:
        return _refuse(problem)
    if discovery_server:
        use_discovery_server(discovery_server)
    specs, overrides = _nodes_to_run(sim, world, robots, teleop, fleet_robot)
    files = shipped_parameter_files(sim, remote) + list(parameter_files)
    stop = threading.Event()
    previous = {sig: signal.signal(sig, lambda *_: stop.set())
                for sig in (signal.SIGINT, signal.SIGTERM)}
    suite: Optional[SuiteProcess] = None
    children: Dict[str, Any] = {}
    incident_recorder: Optional[RecorderProcess] = None
    try:
        try:
            # The simulation first: it refuses a fleet its world has no start poses for.
            suite = SuiteProcess(specs, files, overrides, namespace)
        except (ConfigurationError, ParameterFileError) as error:
            return _refuse(f'refusing to start: {error}')
        running = ', '.join(suite.nodes)
        if recorder and robots is None:
            incident_recorder = RecorderProcess(namespace, files)
            running += ', and incident_recorder in a process of its own'
        if robots is not None:
            children = _start_fleet_robots(fleet_names(robots), namespace, parameter_files,
                                           remote, recorder)
            running = (f"{robots} robots ({', '.join(children)}), each in a process of its own "
                       f"running {', '.join(s.executable for s in SUITE + ROBOT_NODES)}, and "
                       f'{running}; fleet file {_write_fleet_file(namespace, robots)}')
        if web_port is not None:
            children['web console'] = _start_web_console(namespace, robots, web_port)
            running += f', and the web console on port {web_port}'
        print(f'robot-sm up: running {running} (Ctrl-C to stop)', flush=True)
        return _run_until_stopped(stop, suite, children, incident_recorder)
    finally:
        if incident_recorder is not None:
            incident_recorder.begin_stop()  # it ends while the rest is stopped
        _stop_fleet_robots(children)
        if suite is not None:
            suite.shutdown()
        if incident_recorder is not None:
            incident_recorder.stop()
        if not fleet_robot:  # a robot of a fleet hears Ctrl-C twice (terminal, fleet): once counts
            for sig, handler in previous.items():
                signal.signal(sig, handler)


def _write_fleet_file(namespace: str, robots: int) -> pathlib.Path:
    """
    Write the fleet file naming the fleet's robots; return where.

    ``robot-sm fleet estop on --fleet FILE`` then names each one that does not confirm, also
    one that was never found (robot_sm.client.roster).
    """
    from robot_sm.client.roster import write_fleet_file
    from robot_sm.storage import default_file
    path = pathlib.Path(default_file(namespace, 'fleet.yaml'))
    write_fleet_file(path, [join_namespace(namespace, name) for name in fleet_names(robots)])
    return path


def _refuse(reason: str) -> int:
    print(f'robot-sm up: {reason}', file=sys.stderr)
    return 2


def _problem(sim: bool, world: Optional[str], robots: Optional[int], teleop: bool,
             discovery_server: str, web_port: Optional[int] = None) -> Optional[str]:
    """Return why the options cannot be used together, or None."""
    from robot_sm.resources import shipped_worlds, world_file
    if world is not None:
        if not sim:
            return '--world needs --sim'
        if world not in shipped_worlds() and not world_file(world).is_file():
            return (f"unknown world '{world}': shipped worlds are "
                    f"{', '.join(shipped_worlds())}, or give a map YAML file")
    if robots is not None:
        if not sim:
            return '--robots needs --sim (on real robots, run one suite on each)'
        if robots < 1:
            return f'--robots {robots}: must be at least 1'
        if teleop:
            return '--teleop cannot be used with --robots: a simulated fleet has no arms'
    if discovery_server:
        problem = discovery_server_problem(discovery_server)
        if problem:
            return f'--discovery-server {problem}'
    if web_port is not None and not 0 <= web_port <= 65535:
        return f'--web-port {web_port}: must be within 0..65535'
    return None


def _nodes_to_run(sim: bool, world: Optional[str], robots: Optional[int], teleop: bool,
                  fleet_robot: bool) -> Tuple[List[NodeSpec], Dict[str, Dict[str, Any]]]:
    """Return the nodes this process runs, and the parameters given to them by option."""
    overrides: Dict[str, Dict[str, Any]] = {}
    if world is not None:
        overrides['robot_sim'] = {'world': world}
    if fleet_robot:
        return list(SUITE) + list(ROBOT_NODES), overrides
    if robots is None:
        return (list(SUITE) + (list(SIMULATION) if sim else [])
                + (list(TELEOP) if teleop else [])), overrides
    overrides['robot_sim'] = {**overrides.get('robot_sim', {}), 'robots': fleet_names(robots)}
    return list(SIMULATOR), overrides


def _run_until_stopped(stop: threading.Event, suite: SuiteProcess,
                       children: Mapping[str, Any],
                       incident_recorder: Optional[RecorderProcess] = None) -> int:
    """Wait for ``stop``; return 0 then, or 1 (2) once a node or a robot's process failed."""
    while not stop.wait(0.2):
        note = incident_recorder.check() if incident_recorder is not None else None
        if note:
            print(f'robot-sm up: {note}', file=sys.stderr)
        failure = suite.failure()
        for name, child in children.items():
            if child.poll() is not None:
                # A robot that refused its parameters (2) said why on its own line.
                print(f'robot-sm up: {name} stopped (exit code {child.returncode})',
                      file=sys.stderr)
                return 2 if child.returncode == 2 else 1
        if failure is not None:
            print(f'robot-sm up: {failure}', file=sys.stderr)
            return 1
    return 0


def _start_fleet_robots(names: Sequence[str], namespace: str,
                        parameter_files: Sequence[pathlib.Path],
                        remote: bool, recorder: bool = True) -> Dict[str, Any]:
    """Start each robot of a simulated fleet in a process of its own; return them by name."""
    children = {}
    for name in names:
        argv = [sys.executable, '-m', 'robot_sm.frontends.cli', '--namespace',
                join_namespace(namespace, name), 'up', '--sim', '--fleet-robot',
                *(['--remote'] if remote else []), *([] if recorder else ['--no-recorder']),
                *(['--params', *map(str, parameter_files)] if parameter_files else [])]
        children[name] = up_child(argv)
    return children


def _start_web_console(namespace: str, robots: Optional[int], port: int) -> Any:
    """Start ``robot-sm web`` for the suite (robot1 of a fleet); it prints where to open it."""
    shown = join_namespace(namespace, 'robot1') if robots is not None else namespace
    return up_child([sys.executable, '-m', 'robot_sm.frontends.cli',
                     *web_console_arguments(shown, port)])


def _stop_fleet_robots(children: Mapping[str, Any]) -> None:
    """Stop the robots' processes with SIGTERM; kill, and say so, those that do not stop."""
    for child in children.values():
        if child.poll() is None:
            child.send_signal(signal.SIGTERM)
    for name, child in children.items():
        try:
            child.wait(timeout=FLEET_STOP_TIMEOUT)
        except subprocess.TimeoutExpired:
            print(f'robot-sm up: {name} did not stop within {FLEET_STOP_TIMEOUT:g} s: killed',
                  file=sys.stderr)
            child.kill()
            child.wait()
