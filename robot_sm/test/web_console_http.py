"""
What the web console's HTTP tests share: the suite, the console, requests and sockets.

The suite and the console's server in front of it, and a stranger's or a page's requests and
WebSocket, over real connections.
"""

import asyncio
import json
import threading
from typing import Any, Dict, List, Optional, Tuple

import aiohttp
from robot_sm.bringup.running_suite import RunningSuite
from robot_sm.frontends.web.server import WebServerThread

State = Tuple[str, bool, List[Tuple[int, float, float, str]]]


class Served:
    """The suite and the console's server in front of it."""

    def __init__(self, suite: RunningSuite, server: WebServerThread) -> None:
        self.suite = suite
        self.server = server
        self.url = server.url

    def state(self) -> State:
        """Return the suite's mode, e-stop and waypoints, as the suite has them."""
        mode = self.suite.client.wait_for_mode()
        rows = self.suite.client.waypoints().data['waypoints']
        return mode.mode, mode.emergency_stop, [(w.waypoint_id, round(w.x, 3), round(w.y, 3),
                                                 w.routine) for w in rows]


def request(method: str, url: str, headers: Optional[Dict[str, str]] = None,
            data: Any = None, source: Optional[str] = None,
            ssl_context: Any = None) -> Tuple[int, Dict[str, str], str, Dict[str, Any]]:
    """Send one HTTP request from the loopback address ``source``; return what came back."""
    async def go() -> Tuple[int, Dict[str, str], str, Dict[str, Any]]:
        connector = aiohttp.TCPConnector(local_addr=(source, 0) if source else None,
                                         ssl=ssl_context)
        async with aiohttp.ClientSession(connector=connector) as session:
            async with session.request(method, url, headers=headers, data=data,
                                       allow_redirects=False) as answer:
                cookies = dict(answer.cookies.items())
                return answer.status, dict(answer.headers), await answer.text(), cookies
    return asyncio.run(go())


def websocket(url: str, headers: Dict[str, str], messages: List[str],
              answers: int) -> Tuple[List[Dict[str, Any]], Optional[int]]:
    """
    Send ``messages`` over a page's WebSocket; return the answers and how it closed.

    The answers are the results and errors (pongs and updates are left out); the close code is
    the server's if it closed the socket.
    """
    async def go() -> Tuple[List[Dict[str, Any]], Optional[int]]:
        async with aiohttp.ClientSession(headers=headers) as session:
            async with session.ws_connect(url.replace('http', 'ws', 1) + '/ws',
                                          max_msg_size=0) as ws:
                for message in messages:
                    await ws.send_str(message)
                found: List[Dict[str, Any]] = []
                while len(found) < answers:
                    msg = await ws.receive(timeout=10.0)
                    if msg.type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED,
                                    aiohttp.WSMsgType.CLOSING):
                        return found, ws.close_code
                    if msg.type == aiohttp.WSMsgType.TEXT:
                        document = json.loads(msg.data)
                        if document['type'] in ('result', 'error'):
                            found.append(document)
                return found, None
    return asyncio.run(go())


def call(action: str, call_id: int = 1, **args: Any) -> str:
    return json.dumps({'type': 'call', 'id': call_id, 'action': action, 'args': args})


def flood(url: str, addresses: int, each: int, tried: threading.Event) -> List[int]:
    """
    Send wrong tokens from ``addresses`` loopback addresses, ``each`` from each at least.

    Each address sends on (one every half a second) until ``tried`` is set: the guessing lasts
    as long as the test tries the logged-in page, however fast the machine.
    """
    async def from_address(number: int) -> List[int]:
        source = f'127.0.{1 + number // 250}.{1 + number % 250}'
        connector = aiohttp.TCPConnector(local_addr=(source, 0))
        async with aiohttp.ClientSession(connector=connector) as session:
            found: List[int] = []
            while len(found) < each or not tried.is_set():
                wrong = {'Authorization': f'Bearer wrong-{number}-{len(found)}'}
                async with session.get(f'{url}/api/session', headers=wrong) as answer:
                    found.append(answer.status)
                if len(found) >= each:
                    await asyncio.sleep(0.5)
            return found

    async def everyone() -> List[int]:
        answers = await asyncio.gather(*(from_address(n) for n in range(addresses)))
        return [status for found in answers for status in found]
    return asyncio.run(everyone())
