"""
The console's state between ROS and the pages: one channel per robot, owned by the event loop.

A :class:`Channel` holds the newest value of every kind a page is sent about one robot, each with
a version, and the robot's event timeline (every event, numbered), and wakes the pages that show
it when one changes; it keeps the heartbeats of its pages too. Its
:class:`~robot_sm.frontends.web.bridge.RobotBridge` feeds it from the ROS threads through
``loop.call_soon_threadsafe``; nothing else crosses threads. :class:`Console` opens a channel
when a page first shows a robot and closes it (but never the first robot's) when the last page
leaves; :class:`FleetWatch` lists the robots on the domain for the robot selector. Calls to the
suite run on worker threads: the Software Stop on a lane of its own, so that it never waits
behind another call; every other control on one lane, in the order the pages sent them.
"""

import asyncio
from concurrent.futures import ThreadPoolExecutor
import logging
import pathlib
import threading
from typing import Any, Dict, List, Optional, Set

from rclpy.context import Context
from robot_sm.client import FleetClient, Result, SuiteUnavailable
from robot_sm.client.roster import SeenRobots
from robot_sm.frontends.daemon.protocol import DaemonUnusable, socket_directory
from robot_sm.frontends.web.actions import CONTROL_STALE_AFTER, perform
from robot_sm.frontends.web.bridge import RobotBridge
from robot_sm.frontends.web.events import Event, EventLog
from robot_sm.frontends.web.heartbeat import PageHeartbeats
from robot_sm.frontends.web.protocol import Call
from robot_sm_msgs.msg import Operator

LOG = logging.getLogger('robot_sm.web')
#: Seconds between two looks at the fleet.
FLEET_PERIOD = 2.0
#: The kind of a channel's versions that counts its events (sent as ``events`` messages).
EVENTS = 'events'
#: Seconds between two keep-alives of the control an operator page holds (it goes stale
#: :data:`~robot_sm.frontends.web.actions.CONTROL_STALE_AFTER` seconds after the last).
KEEP_CONTROL_PERIOD = 1.0


class Channel:
    """One robot as the pages see it: the newest values, their versions, the pages waiting."""

    def __init__(self, namespace: str) -> None:
        self.namespace = namespace
        self.bridge: Optional[RobotBridge] = None
        self.values: Dict[str, Any] = {}
        self.versions: Dict[str, int] = {}
        self.waiters: Set[asyncio.Event] = set()
        self.pages = 0
        self.events = EventLog()
        self.heartbeats = PageHeartbeats()

    def put(self, kind: str, value: Any) -> None:
        """Keep ``value`` as the newest of ``kind`` and wake the pages (event loop only)."""
        if kind in self.values and self.values[kind] == value:
            return  # a keep-alive repeats what the pages have
        self.values[kind] = value
        self.versions[kind] = self.versions.get(kind, 0) + 1
        self._wake()

    def add_event(self, new: Event) -> None:
        """Add an event to the robot's timeline and wake the pages (event loop only)."""
        self.events.add(new)
        self.versions[EVENTS] = self.events.last_seq
        self._wake()

    def _wake(self) -> None:
        for waiter in self.waiters:
            waiter.set()


class Console:
    """The robots' channels, the worker lanes for calls, and the fleet."""

    #: The event loop of the pages, the one :meth:`start` ran on.
    loop: asyncio.AbstractEventLoop

    def __init__(self, context: Context, namespace: str, pose_rate: float = 10.0,
                 timeout: float = 5.0, incidents: Optional[pathlib.Path] = None) -> None:
        """
        Serve the robot in ``namespace`` first; ROS in ``context``.

        ``incidents``: the incident recorder's folder of that robot (None: where it writes on
        this computer; the other robots' always are).
        """
        self.context = context
        self.incidents = incidents
        self.default = '/' + namespace.strip('/')
        self.pose_rate = pose_rate
        self.timeout = timeout
        self.channels: Dict[str, Channel] = {}
        self.fleet: List[Dict[str, Any]] = []
        #: The robots expected (a fleet file): the selector shows those not found.
        self.expected: List[str] = []
        self._stop_lane = ThreadPoolExecutor(max_workers=1, thread_name_prefix='web_stop')
        self._call_lane = ThreadPoolExecutor(max_workers=1, thread_name_prefix='web_call')
        self._opening: Dict[str, 'asyncio.Future[Channel]'] = {}
        self._fleet_watch: Optional[FleetWatch] = None

    async def start(self) -> None:
        """Open the first robot's channel and start watching the fleet (on the running loop)."""
        self.loop = asyncio.get_running_loop()
        await self._channel(self.default)
        self._fleet_watch = FleetWatch(self.context, self)

    async def join(self, namespace: str) -> Channel:
        """Return the channel of the robot in ``namespace`` for one more page, opened if new."""
        channel = await self._channel('/' + namespace.strip('/'))
        channel.pages += 1
        if channel.bridge is not None:
            channel.bridge.watched.set()
        return channel

    async def _channel(self, namespace: str) -> Channel:
        """Return the channel of ``namespace``; open it (once, however many ask) if new."""
        channel = self.channels.get(namespace)
        if channel is not None:
            return channel
        pending = self._opening.get(namespace)
        if pending is not None:
            return await asyncio.shield(pending)
        pending = self._opening[namespace] = self.loop.create_future()
        channel = Channel(namespace)

        def sink(kind: str, value: Any) -> None:
            if kind == 'event':
                self.loop.call_soon_threadsafe(channel.add_event, value)
            else:
                self.loop.call_soon_threadsafe(channel.put, kind, value)

        try:
            folder = self.incidents if namespace == self.default else None
            channel.bridge = await self.loop.run_in_executor(
                None, lambda: RobotBridge(self.context, namespace, sink, self.pose_rate,
                                          self.timeout, folder))
        except BaseException as error:
            pending.set_exception(error)
            pending.exception()  # told to whoever waits; nobody else needs to read it
            raise
        finally:
            del self._opening[namespace]
        channel.put('fleet', {'robots': self.fleet})
        self.channels[namespace] = channel
        pending.set_result(channel)
        return channel

    def leave(self, channel: Channel) -> None:
        """Let one page go; close the channel if it was the last (not the first robot's)."""
        channel.pages -= 1
        if channel.pages <= 0 and channel.bridge is not None:
            channel.bridge.watched.clear()
        if channel.pages <= 0 and channel.namespace != self.default:
            self.channels.pop(channel.namespace, None)
            bridge, channel.bridge = channel.bridge, None
            if bridge is not None:
                self.loop.run_in_executor(None, bridge.close)

    def known(self, namespace: str) -> Optional[str]:
        """Return ``namespace`` if a robot is known there (shown, or found on the domain)."""
        found = {robot['namespace'] for robot in self.fleet if robot['found']} | set(
            self.channels)
        return namespace if namespace in found else None

    def put_fleet(self, robots: List[Dict[str, Any]]) -> None:
        """Show the robots found to every page (event loop only)."""
        if robots != self.fleet:
            self.fleet = robots
            for channel in self.channels.values():
                channel.put('fleet', {'robots': robots})

    async def perform(self, channel: Channel, call: Call, by: Operator) -> Result:
        """Do ``call`` on the channel's robot on its lane as ``by``; return the suite's answer."""
        bridge = channel.bridge
        if bridge is None:
            return Result(False, f'{channel.namespace} is no longer shown')
        lane = self._stop_lane if call.action == 'stop' else self._call_lane
        return await self.loop.run_in_executor(lane, perform, bridge.client, call, by)

    async def keep_control(self, channel: Channel, by: Operator) -> None:
        """Keep ``by``'s control of the channel's robot alive, if they hold it (a page is open)."""
        bridge = channel.bridge
        if bridge is None or bridge.control_holder != by.name:
            return
        client = bridge.client.with_operator(by)
        try:
            await self.loop.run_in_executor(self._call_lane, client.keep_control,
                                            CONTROL_STALE_AFTER)
        except SuiteUnavailable:
            pass

    def close(self) -> None:
        """Stop the fleet watch, the lanes and every bridge (blocks)."""
        if self._fleet_watch is not None:
            self._fleet_watch.close()
        self._stop_lane.shutdown(wait=False, cancel_futures=True)
        self._call_lane.shutdown(wait=False, cancel_futures=True)
        for channel in list(self.channels.values()):
            if channel.bridge is not None:
                channel.bridge.close()
                channel.bridge = None
        self.channels.clear()


class FleetWatch:
    """
    Every suite on the domain, looked at every :data:`FLEET_PERIOD` s on a thread of its own.

    The robots expected (the console's fleet file, and those robot-sm fleet commands saw in this
    ROS environment: :mod:`robot_sm.client.roster`) are listed too, ``found`` false while they
    are not on the domain.
    """

    def __init__(self, context: Context, console: Console) -> None:
        self._console = console
        self._fleet = FleetClient(timeout=1.5, context=context)
        try:
            self._seen: Optional[SeenRobots] = SeenRobots(socket_directory())
        except DaemonUnusable:
            self._seen = None
        self._closed = threading.Event()
        self._thread = threading.Thread(target=self._watch, name='web_fleet', daemon=True)
        self._thread.start()

    def _watch(self) -> None:
        while not self._closed.is_set():
            try:
                expected = set(self._console.expected)
                if self._seen is not None:
                    expected |= set(self._seen.load())
                robots = [{'namespace': robot.namespace, 'state': robot.state,
                           'mode': robot.mode, 'emergency_stop': robot.emergency_stop,
                           'found': robot.found}
                          for robot in self._fleet.status(timeout=1.5,
                                                          roster=sorted(expected))]
            except Exception as error:  # noqa: B902 - the watch goes on; the view says nothing
                LOG.debug('fleet view failed: %s', error)
                robots = []
            if self._closed.is_set():
                return
            self._console.loop.call_soon_threadsafe(self._console.put_fleet, robots)
            self._closed.wait(FLEET_PERIOD)

    def close(self) -> None:
        """Stop watching: the fleet view waiting for robots ends at once."""
        self._closed.set()
        self._fleet.close()
        self._thread.join(timeout=1.0)
