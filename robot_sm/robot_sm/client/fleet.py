"""
Every robot_sm suite on the domain, for an operator of several robots: :class:`FleetClient`.

A robot is a namespace in which a node of the suite runs (``robot_control_mux``,
``service_provider`` or ``state_interface``, :data:`robot_sm.bringup.suite_nodes.SUITE`), found in
the ROS graph; a robot whose suite stops leaves the graph, and the fleet, when DDS says its nodes
are gone (at once for a suite that shuts down; a process that dies without a word stays until its
DDS lease ends). One node, in one rclpy context and so one DDS participant, follows every robot:
the latched topics of each (``robot_sm/state_info``, ``state_outcome``, ``operation_mode``,
``waypoints``) are subscribed when the robot is found, and its service clients made then, so that a
fleet-wide stop does not wait for discovery. Its commands are an operator's (``by``, as
:class:`~robot_sm.client.SuiteClient`'s): a STOP goes straight to each robot's mux
(``robot_sm/_mux/command``), which takes it from anyone; a release, a pause and a continue go to
each robot's command gateway (``robot_sm/command``), which refuses them on a robot whose control
another operator holds (that robot answers NOT CONFIRMED with the holder's name).

    with FleetClient(timeout=2.0) as fleet:
        fleet.wait_for_robots(count=3)
        for robot in fleet.status():
            print(robot.namespace, robot.state, robot.mode, robot.emergency_stop)
        for ack in fleet.emergency_stop(True):
            print(ack.namespace, 'stopped' if ack.confirmed else f'NOT CONFIRMED: {ack.message}')
"""

import threading
import time
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

from rclpy.context import Context
from robot_sm.client.connection import lost_to_a_restart, MODE_NAMES, operator
from robot_sm.client.fleet_answers import Acknowledgement, acknowledgement, RobotStatus
from robot_sm.client.fleet_robot import FollowedRobot, robot_namespaces, ROBOT_POSE, topic_in
from robot_sm.client.robot_search import RobotSearch
from robot_sm.client.spinning_node import SpinningNode
from robot_sm.contract import COMMAND, Command as Kind, MUX_COMMAND
from robot_sm.planar import yaw_from_quaternion
from robot_sm_msgs.msg import Operator
from robot_sm_msgs.srv import Command, GetRobotPose

#: Without a new robot for this long after the last one was found, discovery has settled:
#: Fast DDS's participant announcement period, within which a robot whose first discovery
#: exchange was missed is found by its next announcement (a new process found three suites,
#: each a participant of its own, in 0.2 to 3.4 s here, with gaps of up to 2.5 s between them).
SETTLE_TIME = 3.0


class FleetClient:
    """Every suite under the namespace ``within``, followed from one node."""

    def __init__(self, within: str = '/', timeout: float = 5.0,
                 context: Optional[Context] = None, by: Optional[Operator] = None) -> None:
        """
        Follow the robots under ``within`` in ``context`` (else one of its own).

        ``by`` gives the commands (default: :func:`~robot_sm.client.operator`); a command may
        name another.
        """
        self.within = '/' + within.strip('/')
        self.timeout = timeout
        self.by = by if by is not None else operator()
        self._spinning = SpinningNode('robot_sm_fleet', '/', context)
        self.context = self._spinning.context
        self.node = self._spinning.node
        self._changed = threading.Condition()
        self._robots: Dict[str, FollowedRobot] = {}
        self._lock = threading.Lock()
        #: Set by close: waits for robots and answers end at once.
        self._closed = threading.Event()
        #: When this client last found a new robot (or was made).
        self._last_new_robot = time.monotonic()

    def close(self) -> None:
        """Stop following the fleet; a status or a stop waiting in another thread ends at once."""
        self._closed.set()
        with self._changed:
            self._changed.notify_all()
        self._spinning.close()

    def __enter__(self) -> 'FleetClient':
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    # ---- discovery ----------------------------------------------------------------------------

    def robots(self) -> List[str]:
        """Return the namespaces of the robots in the graph now, and follow any new one."""
        found = robot_namespaces(self.node.get_node_names_and_namespaces(), self.within)
        with self._lock:
            for namespace in found:
                if namespace not in self._robots:
                    self._robots[namespace] = FollowedRobot(self.node, namespace, self._changed)
                    self._last_new_robot = time.monotonic()
            for namespace in set(self._robots) - set(found):
                self._robots.pop(namespace).destroy(self.node)
        return found

    def settle_left(self, settle: float = SETTLE_TIME) -> float:
        """
        Return how much longer to look for new robots before the fleet counts as found.

        ``settle`` less the time this client has already followed the fleet without finding a
        new robot (``settle`` while it knows none): a client that has followed the fleet for a
        while (the robot-sm daemon's) has found them all.
        """
        with self._lock:
            if not self._robots:
                return settle
            quiet = time.monotonic() - self._last_new_robot
        return max(0.0, settle - quiet)

    def wait_for_robots(self, count: Optional[int] = None, timeout: Optional[float] = None,
                        settle: float = SETTLE_TIME, roster: Sequence[str] = ()) -> List[str]:
        """
        Wait until ``count`` robots are found (None: until no new one comes for ``settle`` s).

        Every robot of ``roster`` must be found too.

        Returns the robots found, which may be fewer than ``count`` after ``timeout`` (default:
        the client's).
        """
        deadline = time.monotonic() + (self.timeout if timeout is None else timeout)
        discovery = RobotSearch(count, settle, time.monotonic(), roster)
        while True:
            found = self.robots()
            if discovery.done(found, time.monotonic()) or time.monotonic() >= deadline:
                return found
            time.sleep(0.02)

    # ---- the view -----------------------------------------------------------------------------

    def status(self, timeout: Optional[float] = None,
               roster: Sequence[str] = ()) -> List[RobotStatus]:
        """
        Return every robot's state, outcome, mode, e-stop, pose and waypoint progress.

        Waits up to ``timeout`` (default: the client's) for a robot's state and mode and its
        pose; what has not come by then is None (``pose_error`` says why). A robot of
        ``roster`` (namespaces expected) that is not found is shown as such (``found`` false).
        """
        deadline = time.monotonic() + (self.timeout if timeout is None else timeout)
        robots = self._followed(self.robots())
        with self._changed:
            self._changed.wait_for(lambda: self._closed.is_set() or all(
                robot.latest['state'] is not None and robot.latest['mode'] is not None
                for robot in robots.values()), max(0.0, deadline - time.monotonic()))
        poses = self._call_all(robots, ROBOT_POSE, GetRobotPose.Request, deadline)
        shown = []
        for namespace, robot in robots.items():
            with self._changed:
                latest = dict(robot.latest)
            status = RobotStatus(namespace)
            if latest['state'] is not None:
                status.state = latest['state'].data
            if latest['outcome'] is not None:
                status.outcome = latest['outcome'].data
            if latest['mode'] is not None:
                status.mode = MODE_NAMES.get(latest['mode'].mode, str(latest['mode'].mode))
                status.emergency_stop = bool(latest['mode'].emergency_stop)
            if latest['waypoints'] is not None:
                waypoints = latest['waypoints'].waypoints
                status.waypoints = len(waypoints)
                status.visited = sum(bool(w.visited) for w in waypoints)
                status.unreachable = sum(bool(w.unreachable) for w in waypoints)
            answer, problem = poses[namespace]
            if answer is not None and answer.success:
                p, q = answer.pose.position, answer.pose.orientation
                status.pose = (p.x, p.y, yaw_from_quaternion(q.x, q.y, q.z, q.w))
            else:
                status.pose_error = problem if answer is None else str(answer.message)
            shown.append(status)
        shown += [RobotStatus(namespace, found=False) for namespace in roster
                  if namespace not in robots]
        return sorted(shown, key=lambda status: status.namespace)

    # ---- the fleet-wide stop ------------------------------------------------------------------

    def emergency_stop(self, engaged: bool, timeout: Optional[float] = None,
                       expect: Optional[int] = None, settle: float = 0.0,
                       roster: Sequence[str] = (),
                       by: Optional[Operator] = None) -> List[Acknowledgement]:
        """
        Engage (true) or release (false) every robot's e-stop at once; return each answer.

        Every robot known now is asked at once (a STOP: its mux's ``robot_sm/_mux/command``; a
        release: its gateway's ``robot_sm/command``, as ``by``), and a robot found
        while waiting is asked as soon as it is found, until ``expect`` robots are found or, if
        ``expect`` is None, none new comes for ``settle`` s (0: the robots known now only). A
        robot has confirmed when its mux answered yes and its ``robot_sm/operation_mode`` shows
        the e-stop as asked, within ``timeout`` (default: the client's). Every robot of
        ``roster`` (namespaces expected: :mod:`robot_sm.client.roster`) is looked for until the
        timeout; one never found is answered as not found. Releasing releases the e-stop only:
        nothing moves until a mode is selected.
        """
        if engaged:
            return self._command_all(Kind.ENGAGE_EMERGENCY_STOP, MUX_COMMAND, by, timeout, expect,
                                     settle, roster, shows_stop=True)
        return self._command_all(Kind.RELEASE_EMERGENCY_STOP, COMMAND, by, timeout, expect,
                                 settle, roster, shows_stop=False)

    def pause(self, timeout: Optional[float] = None, expect: Optional[int] = None,
              settle: float = 0.0, roster: Sequence[str] = (),
              by: Optional[Operator] = None) -> List[Acknowledgement]:
        """Pause every robot's running activity at once (their gateways' PAUSE); see stop."""
        return self._command_all(Kind.PAUSE, COMMAND, by, timeout, expect, settle, roster)

    def resume(self, timeout: Optional[float] = None, expect: Optional[int] = None,
               settle: float = 0.0, roster: Sequence[str] = (),
               by: Optional[Operator] = None) -> List[Acknowledgement]:
        """Continue every robot's paused activity at once (their gateways' CONTINUE)."""
        return self._command_all(Kind.CONTINUE, COMMAND, by, timeout, expect, settle, roster)

    def _command_all(self, kind: Kind, service: str, by: Optional[Operator],
                     timeout: Optional[float], expect: Optional[int], settle: float,
                     roster: Sequence[str],
                     shows_stop: Optional[bool] = None) -> List[Acknowledgement]:
        """
        Give ``kind`` to every robot at once; return each answer.

        A robot confirms when it answered yes and, with ``shows_stop``, once its operation mode
        shows the e-stop so.
        """
        started = time.monotonic()
        deadline = started + (self.timeout if timeout is None else timeout)
        robots = self._followed(self.robots())
        discovery = RobotSearch(expect, settle, started, roster)
        confirmed_at: Dict[str, float] = {}

        def shows(robot: FollowedRobot) -> bool:
            if shows_stop is None:
                return True
            mode = robot.latest['mode']
            return mode is not None and bool(mode.emergency_stop) == shows_stop

        def settled(answers: Dict[str, Any]) -> bool:
            """Note who confirmed; return whether every robot confirmed or refused."""
            now = time.monotonic()
            for namespace, answer in answers.items():
                if (namespace not in confirmed_at and answer is not None and answer.success
                        and shows(robots[namespace])):
                    confirmed_at[namespace] = now
            return all(namespace in confirmed_at or (answer is not None and not answer.success)
                       for namespace, answer in answers.items())

        request = Command.Request(command=int(kind), by=by if by is not None else self.by)
        answers = self._call_all(robots, service, lambda: request, deadline, settled, discovery)
        acknowledgements = []
        for namespace in sorted(set(robots) | set(roster)):
            robot = robots.get(namespace)
            if robot is None:
                acknowledgements.append(Acknowledgement(
                    namespace, False, None, f'expected but not found under {self.within} '
                    f'within {deadline - started:g} s', None, found=False))
                continue
            with self._changed:
                mode = robot.latest['mode']
            shown = None if mode is None else bool(mode.emergency_stop)
            acknowledgements.append(acknowledgement(
                namespace, answers[namespace], confirmed_at.get(namespace), shown,
                bool(shows_stop), started, deadline))
        return acknowledgements

    # ---- plumbing -----------------------------------------------------------------------------

    def _followed(self, namespaces: List[str]) -> Dict[str, FollowedRobot]:
        with self._lock:
            return {namespace: self._robots[namespace] for namespace in namespaces
                    if namespace in self._robots}

    def _call_all(self, robots: Dict[str, FollowedRobot], service: str, request: Callable[[], Any],
                  deadline: float,
                  done: Optional[Callable[[Dict[str, Any]], bool]] = None,
                  discovery: Optional[RobotSearch] = None) -> Dict[str, Tuple[Any, str]]:
        """
        Call ``service`` of every robot at once, each as soon as it is matched.

        Robots found until ``discovery`` is done are added to ``robots`` and called too.
        Returns per robot its answer and '', or None and why not. Waits until every robot
        answered and ``done(answers)`` (if given; called under the lock on every change) holds,
        or until ``deadline``.
        """
        began = time.monotonic()
        futures: Dict[str, Any] = {}
        sent: Dict[str, float] = {}
        answers: Dict[str, Any] = dict.fromkeys(robots)
        discovering = discovery is not None and not discovery.done(robots, began)

        def answered(namespace: str, future: Any) -> None:
            with self._changed:
                answers[namespace] = future.result()
                self._changed.notify_all()

        while True:
            if discovering:
                for namespace, robot in self._followed(self.robots()).items():
                    if namespace not in robots:
                        with self._changed:
                            robots[namespace] = robot
                            answers[namespace] = None
                discovering = discovery is not None and not discovery.done(
                    robots, time.monotonic())
            for namespace, robot in robots.items():
                if self._due(robot, namespace, service, futures, sent.get(namespace, 0.0),
                             answers[namespace]):
                    future = robot.clients[service].call_async(request())
                    futures[namespace], sent[namespace] = future, time.monotonic()
                    future.add_done_callback(
                        lambda future, namespace=namespace: answered(namespace, future))
            with self._changed:
                # done() is asked on every change: it may note when each robot got there.
                agreed = done is None or done(dict(answers))
                finished = agreed and not discovering and all(
                    answer is not None for answer in answers.values())
                remaining = deadline - time.monotonic()
                if finished or remaining <= 0 or self._closed.is_set():
                    break
                # A robot not yet matched or found is looked at again soon; answers wake at once.
                self._changed.wait(min(remaining, 0.005 if discovering or len(futures) < len(
                    robots) else 0.05))
        return self._results(robots, service, answers, futures, began)

    def _due(self, robot: FollowedRobot, namespace: str, service: str, futures: Dict[str, Any],
             sent: float, answer: Any) -> bool:
        """Return whether to send ``robot`` the request now: once matched, again if lost."""
        client = robot.clients[service]
        if namespace not in futures:
            return bool(client.service_is_ready())
        if answer is None and lost_to_a_restart(self.node, topic_in(namespace, service), sent):
            client.remove_pending_request(futures[namespace])
            return True
        return False

    def _results(self, robots: Dict[str, FollowedRobot], service: str, answers: Dict[str, Any],
                 futures: Dict[str, Any], began: float) -> Dict[str, Tuple[Any, str]]:
        """Return per robot its answer and '', or None and why not (forgetting the request)."""
        results: Dict[str, Tuple[Any, str]] = {}
        for namespace, robot in robots.items():
            with self._changed:
                answer = answers[namespace]
            name = topic_in(namespace, service)
            if answer is not None:
                results[namespace] = (answer, '')
            elif namespace in futures:
                robot.clients[service].remove_pending_request(futures[namespace])
                results[namespace] = (None, f'service {name} did not answer within '
                                            f'{time.monotonic() - began:.2g} s')
            else:
                results[namespace] = (None, f'service {name} is not available (waited '
                                            f'{time.monotonic() - began:.2g} s)')
        return results
