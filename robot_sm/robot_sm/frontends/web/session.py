"""
One page's WebSocket: what it asks, what it is sent, and its heartbeat.

The reader takes the page's messages (:mod:`~robot_sm.frontends.web.protocol`): a ping is answered
at once with a pong and is the page's own heartbeat; from an operator page whose heartbeat counts
(:mod:`~robot_sm.frontends.web.heartbeat`) it beats the operator heartbeat of the robot it shows,
so the heartbeat lives exactly as long as such a page does: a closed tab, a phone that locks (its
scripts stop) or a dropped link ends the pings, and with ``config/remote.yaml`` the robot's mux
engages its e-stop ``heartbeat_timeout`` after the last one. A page silent for :data:`PAGE_SILENCE`
seconds is closed. Controls run as tasks (on the console's lanes), so pings go on while a call
waits for the suite. A page's ``drive`` messages are published at once on the robot's operators'
stream as the page's operator (:mod:`~robot_sm.frontends.web.drive`); a drive that falls silent
for ``DRIVE_SILENCE`` seconds, and a page that goes while driving, get an explicit zero. The
sender sends each kind the channel holds when it changes, no faster than its rate limit
(:mod:`~robot_sm.frontends.web.outbox`); the map goes as a ``map`` message followed by a binary
message with its PNG, the timeline's new events as ``events`` messages (the robot's log's epoch
and the events, numbered).
"""

import asyncio
import logging
import math
from typing import Any, Optional, Set

from aiohttp import web, WSMsgType
from robot_sm.client import operator
from robot_sm.frontends.web.console import Channel, Console, EVENTS, KEEP_CONTROL_PERIOD
from robot_sm.frontends.web.drive import DriveStream
from robot_sm.frontends.web.outbox import Outbox
from robot_sm.frontends.web.protocol import (
    Call,
    describe,
    Drive,
    parse,
    Ping,
    ProtocolError,
    READ_ONLY_ACTIONS,
    reply,
)
from robot_sm.frontends.web.tokens import Role
from robot_sm_msgs.msg import Operator

LOG = logging.getLogger('robot_sm.web')
#: A page that sends nothing for this long (its pings come every 0.1 s) is closed.
PAGE_SILENCE = 3.0
#: Messages a page may send per second, on average and in a burst.
MESSAGE_RATE = 50.0
MESSAGE_BURST = 100.0
#: Calls of one page waiting for the suite at once.
MAX_PENDING_CALLS = 16
#: Seconds a send may take before the page is taken as gone.
SEND_TIMEOUT = 5.0
#: Events sent in one message at most (a page that opens gets the robot's log in a few).
EVENTS_PER_MESSAGE = 100


def page_operator(name: str, address: str) -> Operator:
    """
    Return who gives a page's commands: ``NAME@ADDRESS`` (``web@ADDRESS`` without a name).

    The name is the login session's (the token's label, else the name given at the login),
    never one the page sends: two people at one address are two operators when they log in
    with different names or tokens.
    """
    return operator(f'{name or "web"}@{address}', surface='web', address=address)


class PageSession:
    """One page's WebSocket, from the handshake to the close."""

    def __init__(self, ws: web.WebSocketResponse, console: Console, role: Role, address: str,
                 channel: Channel, name: str = '') -> None:
        self.ws = ws
        self.console = console
        self.role = role
        self.address = address
        #: Who gives the page's commands.
        self.operator = page_operator(name, address)
        self.channel = channel
        self.outbox = Outbox()
        self._wake = asyncio.Event()
        self._send_lock = asyncio.Lock()
        self._calls: Set['asyncio.Task[None]'] = set()
        self._allowance = MESSAGE_BURST
        self._counted = console.loop.time()
        self._stream = DriveStream()
        self._silence_check: Optional[asyncio.TimerHandle] = None
        channel.waiters.add(self._wake)
        channel.heartbeats.join(self, role is Role.OPERATOR)

    async def run(self) -> None:
        """Serve the page until it closes, falls silent or the server stops."""
        await self._send(reply('hello', role=self.role.value, namespace=self.channel.namespace,
                               operator=self.operator.name,
                               ping_interval=0.1, page_silence=PAGE_SILENCE,
                               heartbeat=self.channel.heartbeats.counts(self)))
        sender = asyncio.ensure_future(self._send_updates())
        keeper = asyncio.ensure_future(self._keep_control())
        try:
            await self._read()
        finally:
            self._end_drive('its page closed')
            sender.cancel()
            keeper.cancel()
            for call in list(self._calls):
                call.cancel()
            self.channel.waiters.discard(self._wake)
            self.channel.heartbeats.leave(self)
            self.console.leave(self.channel)
            if not self.ws.closed:
                await self.ws.close()

    async def _keep_control(self) -> None:
        """Keep the page's operator's control alive while the page is open (its heartbeat)."""
        if self.role is not Role.OPERATOR:
            return
        while True:
            await asyncio.sleep(KEEP_CONTROL_PERIOD)
            await self.console.keep_control(self.channel, self.operator)

    # ---- from the page ----------------------------------------------------------------------

    async def _read(self) -> None:
        while True:
            try:
                msg = await self.ws.receive(timeout=PAGE_SILENCE)
            except asyncio.TimeoutError:
                LOG.info('page of %s silent for %g s: closed', self.address, PAGE_SILENCE)
                return
            if msg.type == WSMsgType.TEXT:
                await self._on_text(msg.data)
            elif msg.type == WSMsgType.BINARY:
                await self._send(reply('error', id=None, message='binary messages are not taken'))
            else:  # CLOSE, CLOSING, CLOSED, ERROR (an oversized message closes with 1009)
                if msg.type == WSMsgType.ERROR:
                    LOG.warning('page of %s: %s', self.address, self.ws.exception())
                return

    def _within_rate(self) -> bool:
        now = self.console.loop.time()
        self._allowance = min(MESSAGE_BURST,
                              self._allowance + (now - self._counted) * MESSAGE_RATE)
        self._counted = now
        if self._allowance < 1.0:
            return False
        self._allowance -= 1.0
        return True

    async def _on_text(self, text: str) -> None:
        if not self._within_rate():
            await self._send(reply('error', id=None, message='too many messages: slow down'))
            return
        try:
            message = parse(text)
        except ProtocolError as error:
            LOG.info('page of %s sent a malformed message: %s', self.address, error)
            await self._send(reply('error', id=error.call_id, message=str(error)))
            return
        if isinstance(message, Ping):
            now = self.console.loop.time()
            bridge = self.channel.bridge
            if self.channel.heartbeats.ping(self, now) and bridge is not None:
                bridge.presence.beat()
            await self._send(reply('pong', seq=message.seq))
            return
        if isinstance(message, Drive):
            await self._drive(message)
            return
        await self._on_call(message)

    # ---- driving ------------------------------------------------------------------------------

    async def _drive(self, message: Drive) -> None:
        """Publish the page's velocity now, as its operator; watch for its silence."""
        if self.role is not Role.OPERATOR:
            await self._send(reply('error', id=None, message='read-only: this page may watch, '
                                                             'not drive'))
            return
        bridge = self.channel.bridge
        if bridge is None:
            return
        now = self.console.loop.time()
        linear, angular = self._stream.take(message.linear, message.angular,
                                            bridge.drive.limits, now)
        bridge.drive.publish(self.operator.name, linear, angular)
        self._watch_silence(now)

    def _watch_silence(self, now: float) -> None:
        if self._silence_check is not None:
            self._silence_check.cancel()
            self._silence_check = None
        wait = self._stream.due(now)
        if math.isfinite(wait):
            self._silence_check = self.console.loop.call_later(max(0.0, wait), self._on_silence)

    def _on_silence(self) -> None:
        self._silence_check = None
        now = self.console.loop.time()
        if self._stream.silent(now):
            self._zero('its drive fell silent')
        else:
            self._watch_silence(now)

    def _end_drive(self, why: str) -> None:
        """Stop the page's drive: a zero if it was moving the robot."""
        if self._silence_check is not None:
            self._silence_check.cancel()
            self._silence_check = None
        if self._stream.end():
            self._zero(why)

    def _zero(self, why: str) -> None:
        bridge = self.channel.bridge
        if bridge is not None:
            bridge.drive.publish(self.operator.name, 0.0, 0.0)
        LOG.info('page of %s: zero sent to %s, %s', self.address, self.channel.namespace, why)

    async def _on_call(self, call: Call) -> None:
        if self.role is not Role.OPERATOR and call.action not in READ_ONLY_ACTIONS:
            LOG.warning('read-only page of %s refused: %s', self.address, describe(call))
            await self._answer(call, False, 'read-only: this page may watch, not operate (log '
                                            'in with the operator token)')
            return
        if call.action == 'select_robot':
            await self._select_robot(call)
            return
        if len(self._calls) >= MAX_PENDING_CALLS:
            await self._answer(call, False, f'{MAX_PENDING_CALLS} calls are still waiting for '
                                            'the suite: try again')
            return
        task = asyncio.ensure_future(self._perform(call))
        self._calls.add(task)
        task.add_done_callback(self._calls.discard)

    async def _perform(self, call: Call) -> None:
        result = await self.console.perform(self.channel, call, self.operator)
        LOG.info('%s on %s by %s: %s (%s)', describe(call), self.channel.namespace, self.address,
                 'done' if result.success else 'refused', result.message)
        await self._answer(call, result.success, result.message)

    async def _select_robot(self, call: Call) -> None:
        namespace = '/' + call.args['namespace'].strip('/')
        if self.console.known(namespace) is None:
            await self._answer(call, False, f'no robot is known in {namespace}')
            return
        if namespace != self.channel.namespace:
            self._end_drive('its page shows another robot')
            channel = await self.console.join(namespace)
            old, self.channel = self.channel, channel
            old.waiters.discard(self._wake)
            old.heartbeats.leave(self)
            channel.waiters.add(self._wake)
            channel.heartbeats.join(self, self.role is Role.OPERATOR)
            self.console.leave(old)
            self.outbox.reset()
            await self._send(reply('robot', namespace=namespace))
            self._wake.set()
        await self._answer(call, True, f'showing {namespace}')

    async def _answer(self, call: Call, success: bool, message: str) -> None:
        await self._send(reply('result', id=call.call_id, action=call.action, success=success,
                               message=message))

    # ---- to the page ------------------------------------------------------------------------

    async def _send(self, text: str, data: Optional[bytes] = None) -> None:
        """Send a text message (and a binary one right after it); a stuck page is closed."""
        if self.ws.closed:
            return
        async with self._send_lock:
            try:
                await asyncio.wait_for(self.ws.send_str(text), SEND_TIMEOUT)
                if data is not None:
                    await asyncio.wait_for(self.ws.send_bytes(data), SEND_TIMEOUT)
            except (asyncio.TimeoutError, ConnectionError, RuntimeError) as error:
                LOG.info('page of %s gone while sending (%s): closed', self.address,
                         type(error).__name__)
                await self.ws.close()

    async def _send_updates(self) -> None:
        try:
            await self._send_changes()
        except asyncio.CancelledError:
            raise
        except Exception:  # noqa: B902 - a page without updates must not look alive
            LOG.exception('page of %s: sending failed; closed', self.address)
            await self.ws.close()

    async def _send_changes(self) -> None:
        loop = self.console.loop
        while not self.ws.closed:
            self._wake.clear()
            channel = self.channel
            ready, wait = self.outbox.due(channel.versions, loop.time())
            for kind in ready:
                version = channel.versions[kind]
                await self._send_kind(channel, kind)
                self.outbox.sent(kind, version, loop.time())
            if ready:
                continue
            try:
                await asyncio.wait_for(self._wake.wait(), wait)
            except asyncio.TimeoutError:
                pass

    async def _send_kind(self, channel: Channel, kind: str) -> None:
        if kind == EVENTS:
            new = channel.events.since(max(0, self.outbox.version_sent(kind)))
            for first in range(0, len(new), EVENTS_PER_MESSAGE):
                await self._send(reply('events', namespace=channel.namespace,
                                       epoch=channel.events.epoch,
                                       events=new[first:first + EVENTS_PER_MESSAGE]))
            return
        value: Any = channel.values[kind]
        if kind == 'map':
            meta, image = value
            await self._send(reply('map', **meta), image)
        else:
            await self._send(reply('update', kind=kind, value=value))
