"""
Login sessions of the web console: never locked out by strangers, ended when idle or logged out.

A suite (with ScriptedNavigation, no robot) and the console's server run in this process (the
server with a short session idle time); each test logs in as a page does and checks, over real
HTTP and WebSocket connections, what a logged-in page can still do while others fail, and when
its session ends.
"""

import asyncio
import os
import threading
import time
from typing import Any, Dict, Iterator, List, Optional

import aiohttp
from operator_suite import scripted
import pytest
from robot_sm.bringup.running_suite import RunningSuite
from robot_sm.client import operator
from robot_sm.frontends.web.gate import COOKIE, Gate
from robot_sm.frontends.web.server import WebServer, WebServerThread
from robot_sm.frontends.web.tokens import AccessTokens, FailedAttempts
from robot_sm.testing import RosHarness, wait_until
from web_console_http import flood, request, Served

OPERATOR = 'operator-token-for-the-session-tests-0123456789'
#: Seconds a session may go unused here.
SESSION_IDLE = 1.0


@pytest.fixture(scope='module')
def served() -> Iterator[Served]:
    harness = RosHarness(namespace=f'/web_sessions_{os.getpid()}')
    suite: Optional[RunningSuite] = None
    server: Optional[WebServerThread] = None
    try:
        suite = RunningSuite(namespace=harness.namespace, context=harness.context,
                             parameters=scripted())
        # The test's own calls are those of the operator at the page (on this computer).
        suite.client = suite.client.with_operator(
            operator('web@127.0.0.1', surface='web', address='127.0.0.1'))
        gate = Gate(AccessTokens(OPERATOR), tls=False, session_idle=SESSION_IDLE,
                    slow_check=0.05)
        server = WebServerThread(WebServer(harness.context, harness.namespace, gate, port=0))
        yield Served(suite, server)
    finally:
        if server is not None:
            server.close()
        if suite is not None:
            suite.close()
        harness.shutdown()


def login(served: Served, source: Optional[str] = None) -> Dict[str, str]:
    """Log in as a page does; return the headers that carry its session."""
    status, _, _, cookies = request('GET', f'{served.url}/login?token={OPERATOR}', source=source)
    assert status == 303, status
    return {'Cookie': f'{COOKIE}={cookies[COOKIE].value}', 'Origin': served.url}


async def page_socket(url: str, headers: Dict[str, str], seconds: float = 0.0,
                      opened: Optional[asyncio.Event] = None) -> List[str]:
    """Open a page's WebSocket, ping for ``seconds``; return the types of what came."""
    async with aiohttp.ClientSession(headers=headers) as session:
        async with session.ws_connect(url.replace('http', 'ws', 1) + '/ws') as ws:
            types: List[str] = []
            end = time.monotonic() + seconds
            while True:
                try:
                    await ws.send_json({'type': 'ping', 'seq': 1})
                except ConnectionError:  # closed by the console
                    return types + ['closed']
                msg = await ws.receive(timeout=5.0)
                if msg.type != aiohttp.WSMsgType.TEXT:
                    return types + ['closed']
                types.append(msg.json()['type'])
                if opened is not None and types[-1] == 'hello':
                    opened.set()
                if time.monotonic() > end and 'hello' in types:
                    return types
                await asyncio.sleep(0.05)


def release(served: Served) -> None:
    assert served.suite.client.set_emergency_stop(False).success
    assert wait_until(lambda: not served.suite.client.wait_for_mode().emergency_stop, 10.0)


def test_an_address_that_failed_too_often_keeps_its_logged_in_session(served: Served) -> None:
    source = '127.0.0.3'
    session = login(served, source)
    for _ in range(FailedAttempts().limit):
        assert request('GET', f'{served.url}/login?token=wrong', source=source)[0] == 401
    assert request('GET', f'{served.url}/login?token={OPERATOR}', source=source)[0] == 429
    assert request('GET', f'{served.url}/api/session', headers=session, source=source)[0] == 200
    status, _, body, _ = request('POST', f'{served.url}/api/stop', headers=session,
                                 data='{}', source=source)
    assert status == 200 and '"success": true' in body, body
    assert served.suite.client.wait_for_mode(emergency_stop=True).emergency_stop
    assert 'hello' in asyncio.run(page_socket(served.url, session))
    release(served)


def test_a_thousand_wrong_tokens_from_many_addresses_stop_no_session_s_stop_nor_reconnect(
        served: Served) -> None:
    session = login(served)
    tried = threading.Event()
    statuses: List[Any] = []
    guessing = threading.Thread(
        target=lambda: statuses.extend(flood(served.url, 100, 10, tried)))
    guessing.start()
    try:
        assert wait_until(lambda: served.server.server.gate.failures.slowed(time.monotonic()),
                          30.0), 'the guessing did not start'
        status, _, body, _ = request('POST', f'{served.url}/api/stop', headers=session,
                                     data='{}')
        assert status == 200 and '"success": true' in body, body
        assert served.suite.client.wait_for_mode(emergency_stop=True).emergency_stop
        assert 'hello' in asyncio.run(page_socket(served.url, session))  # the reconnect
    finally:
        tried.set()
        guessing.join(timeout=120.0)
    assert len(statuses) >= 1000 and set(statuses) <= {401, 429}, set(statuses)
    # The right token from an address that did not guess is let in, if slowly.
    assert request('GET', f'{served.url}/login?token={OPERATOR}', source='127.0.9.9')[0] == 303
    release(served)


def test_a_session_ends_when_no_page_used_it_for_its_idle_time(served: Served) -> None:
    idle, used = login(served), login(served)
    types = asyncio.run(page_socket(served.url, used, seconds=2 * SESSION_IDLE))
    assert 'closed' not in types  # an open page's pings keep its session
    assert request('GET', f'{served.url}/api/session', headers=used)[0] == 200
    assert request('GET', f'{served.url}/api/session', headers=idle)[0] == 401
    with pytest.raises(aiohttp.WSServerHandshakeError):
        asyncio.run(page_socket(served.url, idle))


def test_a_log_out_ends_the_session_and_closes_its_pages(served: Served) -> None:
    session, other = login(served), login(served)

    async def log_out_while_open() -> List[str]:
        opened = asyncio.Event()
        page = asyncio.ensure_future(page_socket(served.url, session, 30.0, opened))
        await asyncio.wait_for(opened.wait(), 10.0)
        async with aiohttp.ClientSession(headers=session) as client:
            async with client.post(f'{served.url}/logout', allow_redirects=False) as answer:
                assert answer.status == 303 and answer.headers['Location'] == '/login'
                assert answer.cookies[COOKIE].value == ''
        return await asyncio.wait_for(page, 10.0)

    assert asyncio.run(log_out_while_open())[-1] == 'closed'
    assert request('GET', f'{served.url}/api/session', headers=session)[0] == 401
    assert request('GET', f'{served.url}/api/session', headers=other)[0] == 200
