"""
The web console's HTTP server (aiohttp): the page, its files, the login, the WebSocket.

Routes (every one but ``/login`` behind :class:`~robot_sm.frontends.web.gate.Gate`):

- ``GET /``: the page; ``GET /static/...``: its style and script modules, served from memory
  (read from the package at start: no path ever reaches the file system);
- ``GET /login?token=T[&name=N]`` or ``POST /login`` (form fields ``token``, ``name``): sets
  the session cookie (the session's operator: the token's label, else the name) and goes to
  ``/``; ``POST /logout``: ends the session (its pages are closed) and goes to the login;
- ``GET /ws[?robot=NS]``: the page's WebSocket (:mod:`~robot_sm.frontends.web.session`);
- ``POST /api/stop``: the Software Stop for a page whose WebSocket is not (yet) open, body
  ``{"namespace": NS}`` (operator only);
- ``GET /api/session``: the role and the robot the credential gives.

Request bodies are limited to :data:`MAX_BODY` bytes and WebSocket messages to
:data:`MAX_MESSAGE` (a larger one closes the socket with 1009, message too big). At most
:data:`MAX_PAGES` pages are served at once. :class:`WebServer` runs on an event loop it is given;
:class:`WebServerThread` runs one on a thread of its own (tests, the demo, benchmarks).
"""

import asyncio
import logging
import pathlib
import ssl
import threading
from typing import Any, Dict, Optional, Tuple

from aiohttp import web
from rclpy.context import Context
from robot_sm.frontends.web.console import Console
from robot_sm.frontends.web.gate import Gate, login_page, NAME, ROLE, SESSION
from robot_sm.frontends.web.protocol import Call, ProtocolError, text
from robot_sm.frontends.web.session import page_operator, PageSession
from robot_sm.frontends.web.tokens import Role

LOG = logging.getLogger('robot_sm.web')
STATIC = pathlib.Path(__file__).resolve().parent / 'static'
CONTENT_TYPES = {'.html': 'text/html', '.css': 'text/css', '.js': 'text/javascript',
                 '.png': 'image/png', '.svg': 'image/svg+xml'}
#: The largest HTTP request body (the login form, a stop).
MAX_BODY = 16 * 1024
#: The largest WebSocket message a page may send.
MAX_MESSAGE = 8 * 1024
#: Pages served at once.
MAX_PAGES = 32


def static_files() -> Dict[str, Tuple[bytes, str]]:
    """Return the page's files by URL path: ``/`` and ``/static/...``."""
    files = {}
    for path in sorted(STATIC.rglob('*')):
        if path.is_file() and path.suffix in CONTENT_TYPES:
            files['/static/' + path.relative_to(STATIC).as_posix()] = (
                path.read_bytes(), CONTENT_TYPES[path.suffix])
    files['/'] = files.pop('/static/index.html')
    return files


async def watch_loop(period: float = 0.1, late: float = 0.3) -> None:
    """Log whenever the event loop was held up (pages would see the link as silent)."""
    loop = asyncio.get_running_loop()
    while True:
        before = loop.time()
        await asyncio.sleep(period)
        held = loop.time() - before - period
        if held > late:
            LOG.warning('the event loop was held up for %.2f s', held)


class WebServer:
    """The console's server on the event loop it is started on."""

    def __init__(self, context: Context, namespace: str, gate: Gate, host: str = '127.0.0.1',
                 port: int = 8080, ssl_context: Optional[ssl.SSLContext] = None,
                 incidents: Optional[pathlib.Path] = None) -> None:
        """
        Serve the console of the robot in ``namespace`` on ``host``:``port``.

        ``incidents``: the incident recorder's folder of that robot (None: where its recorder
        writes on this computer).
        """
        self.console = Console(context, namespace, incidents=incidents)
        self.gate = gate
        self.host = host
        self.port = port
        self.ssl_context = ssl_context
        self._runner: Optional[web.AppRunner] = None
        self._files = static_files()
        #: The open pages' sockets, with the login session each came with (None: a token).
        self._pages: Dict[web.WebSocketResponse, Optional[str]] = {}
        self._watchdog: Optional['asyncio.Future[None]'] = None

    @property
    def url(self) -> str:
        """Return the server's address (the port it listens on, once started)."""
        scheme = 'https' if self.ssl_context is not None else 'http'
        host = f'[{self.host}]' if ':' in self.host else self.host
        return f'{scheme}://{host}:{self.port}'

    async def start(self) -> None:
        """Follow the robot and listen; raises OSError if the address is taken."""
        await self.console.start()
        app = web.Application(middlewares=[self.gate.middleware], client_max_size=MAX_BODY)
        app.router.add_get('/', self._file)
        app.router.add_get('/static/{name:.+}', self._file)
        app.router.add_get('/login', self._login_get)
        app.router.add_post('/login', self._login_post)
        app.router.add_post('/logout', self._logout)
        app.router.add_get('/ws', self._websocket)
        app.router.add_post('/api/stop', self._stop)
        app.router.add_get('/api/session', self._session)
        self._runner = web.AppRunner(app, access_log=None, handle_signals=False)
        await self._runner.setup()
        site = web.TCPSite(self._runner, self.host, self.port, ssl_context=self.ssl_context)
        await site.start()
        server = getattr(site, '_server', None)
        if server is not None and server.sockets:
            self.port = server.sockets[0].getsockname()[1]
        self._watchdog = asyncio.ensure_future(watch_loop())

    async def stop(self) -> None:
        """Close every page, stop listening, stop following the robots."""
        if self._watchdog is not None:
            self._watchdog.cancel()
        for ws in list(self._pages):
            await ws.close()
        if self._runner is not None:
            await self._runner.cleanup()
        await asyncio.get_running_loop().run_in_executor(None, self.console.close)

    # ---- handlers -----------------------------------------------------------------------------

    async def _file(self, request: web.Request) -> web.Response:
        found = self._files.get(request.path)
        if found is None:
            raise web.HTTPNotFound()
        body, content_type = found
        return web.Response(body=body, content_type=content_type)

    async def _login_get(self, request: web.Request) -> web.Response:
        token = request.query.get('token')
        if token is None:
            return login_page(request, '')
        return await self.gate.login(request, token, request.query.get('name', ''))

    async def _login_post(self, request: web.Request) -> web.Response:
        form = await request.post()
        token, name = form.get('token'), form.get('name')
        return await self.gate.login(request, token if isinstance(token, str) else '',
                                     name if isinstance(name, str) else '')

    async def _logout(self, request: web.Request) -> web.Response:
        ended = request.get(SESSION)
        answer = self.gate.logout(request)
        for ws, session_id in list(self._pages.items()):
            if ended is not None and session_id == ended:
                await ws.close()
        return answer

    async def _session(self, request: web.Request) -> web.Response:
        return web.json_response({'role': request[ROLE].value,
                                  'namespace': self.console.default})

    def _namespace(self, asked: Optional[str]) -> Optional[str]:
        """Return the robot asked for (none: the first robot), or None if it is not known."""
        return self.console.known('/' + asked.strip('/')) if asked else self.console.default

    async def _websocket(self, request: web.Request) -> web.StreamResponse:
        if len(self._pages) >= MAX_PAGES:
            return web.Response(status=503, text=f'503: {MAX_PAGES} pages are open already\n')
        ws = web.WebSocketResponse(max_msg_size=MAX_MESSAGE, autoping=True, heartbeat=None)
        await ws.prepare(request)
        session_id = request.get(SESSION)
        self._pages[ws] = session_id
        self.gate.page_opened(session_id)
        try:
            asked = self._namespace(request.query.get('robot'))
            channel = await self.console.join(asked or self.console.default)
            await PageSession(ws, self.console, request[ROLE], request.remote or '?',
                              channel, request.get(NAME, '')).run()
        finally:
            self._pages.pop(ws, None)
            self.gate.page_closed(session_id)
        return ws

    async def _stop(self, request: web.Request) -> web.Response:
        if request[ROLE] is not Role.OPERATOR:
            return web.json_response({'success': False, 'message': 'read-only: this page may '
                                      'watch, not operate'}, status=403)
        try:
            body: Any = await request.json() if request.can_read_body else {}
            asked = text(body.get('namespace', '')) if isinstance(body, dict) else ''
        except (ValueError, ProtocolError):
            return web.json_response({'success': False, 'message': 'the body must be '
                                      '{"namespace": "/robot"}'}, status=400)
        namespace = self._namespace(asked)
        if namespace is None:
            return web.json_response({'success': False, 'message': f'no robot is known in '
                                      f'{asked}'}, status=404)
        channel = await self.console.join(namespace)
        try:
            address = request.remote or '?'
            result = await self.console.perform(channel, Call(0, 'stop'), page_operator(
                request.get(NAME, ''), address))
        finally:
            self.console.leave(channel)
        return web.json_response({'success': result.success, 'message': result.message,
                                  'namespace': channel.namespace})


class WebServerThread:
    """A :class:`WebServer` on an event loop of its own thread; :meth:`close` stops both."""

    def __init__(self, server: WebServer, timeout: float = 30.0) -> None:
        """Start ``server``; return once it listens (raise what stopped it, if anything)."""
        self.server = server
        self.loop = asyncio.new_event_loop()
        self._started = threading.Event()
        self._error: Optional[BaseException] = None
        self._thread = threading.Thread(target=self._run, name='web_server', daemon=True)
        self._thread.start()
        if not self._started.wait(timeout):
            raise TimeoutError(f'the web console did not start within {timeout:g} s')
        if self._error is not None:
            raise self._error

    def _run(self) -> None:
        asyncio.set_event_loop(self.loop)
        try:
            self.loop.run_until_complete(self.server.start())
        except BaseException as error:  # noqa: B902 - handed to the starting thread
            self._error = error
            self.loop.run_until_complete(self.server.stop())
            self.loop.close()
            self._started.set()
            return
        self._started.set()
        self.loop.run_forever()
        self.loop.run_until_complete(self.server.stop())
        self.loop.close()

    @property
    def url(self) -> str:
        """Return the server's address."""
        return self.server.url

    def close(self) -> None:
        """Stop the server and its thread."""
        if self._error is None and self._thread.is_alive():
            self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(timeout=15.0)
