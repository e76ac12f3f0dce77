"""
One page's WebSocket: what it asks, what it is sent, and its heartbeat.

The reader takes the page's messages (:mod:`~robot_sm.frontends.web.protocol`): a ping is
answered at once with a pong and, from an operator page, beats the operator heartbeat of the
robot it shows, so the heartbeat lives exactly as long as the page does: a closed tab, a phone
that locks (its scripts stop) or a dropped link ends the pings, and with ``config/remote.yaml`` the
robot's mux engages its e-stop ``heartbeat_timeout`` after the last one. A page silent for
:data:`PAGE_SILENCE` seconds is closed. Controls run as tasks (on the console's lanes), so pings
go on while a call waits for the suite. The sender sends each kind the channel holds when it
changes, no faster than its rate limit (:mod:`~robot_sm.frontends.web.outbox`); the map goes as a
``map`` message followed by a binary message with its PNG.
"""

import asyncio
import logging
from typing import Any, Optional, Set

from aiohttp import web, WSMsgType
from robot_sm.client import operator
from robot_sm.frontends.web.console import Channel, Console, KEEP_CONTROL_PERIOD
from robot_sm.frontends.web.outbox import Outbox
from robot_sm.frontends.web.protocol import (
    Call,
    describe,
    parse,
    Ping,
    ProtocolError,
    READ_ONLY_ACTIONS,
    reply,
)
from robot_sm.frontends.web.tokens import Role

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


class PageSession:
    """One page's WebSocket, from the handshake to the close."""

    def __init__(self, ws: web.WebSocketResponse, console: Console, role: Role, address: str,
                 channel: Channel) -> None:
        self.ws = ws
        self.console = console
        self.role = role
        self.address = address
        #: Who gives the page's commands.
        self.operator = operator(f'web@{address}', surface='web', address=address)
        self.channel = channel
        self.outbox = Outbox()
        self._wake = asyncio.Event()
        self._send_lock = asyncio.Lock()
        self._calls: Set['asyncio.Task[None]'] = set()
        self._allowance = MESSAGE_BURST
        self._counted = console.loop.time()
        channel.waiters.add(self._wake)

    async def run(self) -> None:
        """Serve the page until it closes, falls silent or the server stops."""
        await self._send(reply('hello', role=self.role.value, namespace=self.channel.namespace,
                               ping_interval=0.1, page_silence=PAGE_SILENCE))
        sender = asyncio.ensure_future(self._send_updates())
        keeper = asyncio.ensure_future(self._keep_control())
        try:
            await self._read()
        finally:
            sender.cancel()
            keeper.cancel()
            for call in list(self._calls):
                call.cancel()
            self.channel.waiters.discard(self._wake)
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
            bridge = self.channel.bridge
            if self.role is Role.OPERATOR and bridge is not None:
                bridge.presence.beat()
            await self._send(reply('pong', seq=message.seq))
            return
        await self._on_call(message)

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
            channel = await self.console.join(namespace)
            old, self.channel = self.channel, channel
            old.waiters.discard(self._wake)
            channel.waiters.add(self._wake)
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
                await self._send_kind(channel, kind)
                self.outbox.sent(kind, channel.versions[kind], loop.time())
            if ready:
                continue
            try:
                await asyncio.wait_for(self._wake.wait(), wait)
            except asyncio.TimeoutError:
                pass

    async def _send_kind(self, channel: Channel, kind: str) -> None:
        value: Any = channel.values[kind]
        if kind == 'map':
            meta, image = value
            await self._send(reply('map', **meta), image)
        else:
            await self._send(reply('update', kind=kind, value=value))
