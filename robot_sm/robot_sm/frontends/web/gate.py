"""
The web console's door: who is let in, and the headers every answer carries.

Every request but the login needs a credential: the session cookie a login sets, or the token
as ``Authorization: Bearer TOKEN`` (for scripts). A login session is always let in, whatever
anyone else does. A wrong token is a failed attempt: logged with the address, and an address
that failed too often is refused (429) for a while, even with the right token; when many fail
from anywhere, every token check is slowed down, none refused
(:class:`~robot_sm.frontends.web.tokens.FailedAttempts`). Requests that change
something (the WebSocket handshake, a POST) must come from a page of this server: an ``Origin``
header naming another site is refused (403), which stops cross-site WebSocket hijacking. Every
answer carries a Content Security Policy without inline script, and forbids framing.
"""

import asyncio
import html
import logging
import re
import time
from typing import Awaitable, Callable, Optional

from aiohttp import web
from robot_sm.frontends.web.tokens import (
    AccessTokens,
    checked_name,
    DEFAULT_SESSION_IDLE,
    FailedAttempts,
    Grant,
    Role,
    Sessions,
    TokenError,
)

LOG = logging.getLogger('robot_sm.web')
COOKIE = 'robot_sm_session'
#: Where a request admitted carries the role its credential grants.
ROLE = web.RequestKey('role', Role)
#: Where a request admitted by its login session carries the session's id.
SESSION = web.RequestKey('session', str)
#: Where a request admitted carries its operator's name: the token's label, else the name given
#: at the login ('' for none).
NAME = web.RequestKey('name', str)
#: Seconds each token check waits while too many fail from anywhere.
SLOW_CHECK = 1.0
#: Paths open without a credential: the login itself.
PUBLIC_PATHS = frozenset({'/login'})
#: A Host header that may be written into the policy (host name or address, and port).
HOST_PATTERN = re.compile(r'^[A-Za-z0-9.\-]+(:[0-9]{1,5})?$|^\[[0-9A-Fa-f:.]+\](:[0-9]{1,5})?$')
Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


def content_security_policy(host: str, tls: bool) -> str:
    """Return the policy: scripts, styles and connections of this server only."""
    sockets = f" {'wss' if tls else 'ws'}://{host}" if HOST_PATTERN.match(host) else ''
    return ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' blob: "
            f"data:; connect-src 'self'{sockets}; frame-ancestors 'none'; base-uri 'none'; "
            "form-action 'self'")


def same_origin(request: web.Request) -> bool:
    """Return False if the request says it comes from a page of another origin."""
    origin = request.headers.get('Origin')
    return origin is None or origin == f'{request.scheme}://{request.host}'


class Gate:
    """The tokens, the login sessions and the failed attempts, and the middleware using them."""

    def __init__(self, tokens: AccessTokens, tls: bool,
                 failures: Optional[FailedAttempts] = None,
                 session_idle: float = DEFAULT_SESSION_IDLE,
                 slow_check: float = SLOW_CHECK) -> None:
        """
        Admit ``tokens``' holders; sessions end after ``session_idle`` s unused.

        While too many token checks fail, each waits ``slow_check`` s.
        """
        self.tokens = tokens
        self.slow_check = slow_check
        self.tls = tls
        self.sessions = Sessions(idle_timeout=session_idle)
        self.failures = failures or FailedAttempts()

    def refused(self, request: web.Request, why: str) -> None:
        """Count and log a failed token check of the request's address."""
        address = request.remote or '?'
        count = self.failures.failed(address, time.monotonic())
        LOG.warning('refused %s %s from %s: %s (%d failed in the last %g s)', request.method,
                    request.path, address, why, count, self.failures.window)

    def blocked(self, request: web.Request) -> bool:
        """Return whether token checks from the request's address are refused now."""
        return self.failures.blocked(request.remote or '?', time.monotonic())

    async def check_token(self, request: web.Request, token: str,
                          where: str) -> Optional[Grant]:
        """
        Return what ``token`` grants; count a wrong one (None).

        While too many checks fail from anywhere, each one waits :attr:`slow_check` seconds
        first: guessing gets slower for everyone, and nobody is refused for it.
        """
        if self.failures.slowed(time.monotonic()):
            await asyncio.sleep(self.slow_check)
        grant = self.tokens.grant_of(token)
        if grant is None:
            self.refused(request, f'wrong token{where}')
        return grant

    def session_of(self, request: web.Request) -> Optional[Role]:
        """Return the role of the request's login session, or None (logged, never counted)."""
        session_id = request.cookies.get(COOKIE)
        if session_id is None:
            return None
        role = self.sessions.role_of(session_id, time.monotonic())
        if role is None:
            LOG.info('refused %s %s from %s: no such session (ended, or never was)',
                     request.method, request.path, request.remote)
        return role

    def page_opened(self, session_id: Optional[str]) -> None:
        """Count a page of session ``session_id`` open (None: a page of a token)."""
        if session_id is not None:
            self.sessions.opened(session_id)

    def page_closed(self, session_id: Optional[str]) -> None:
        """Count a page of session ``session_id`` closed: from now on its session may idle."""
        if session_id is not None:
            self.sessions.closed(session_id, time.monotonic())

    async def login(self, request: web.Request, token: str, name: str = '') -> web.Response:
        """
        Check a token given to the login; set the session cookie and go to the page.

        The session's operator is the token's label, else ``name`` (given at the login).
        """
        if self.blocked(request):
            return too_many()
        try:
            name = checked_name(name.strip())
        except TokenError as error:
            return login_page(request, f'That name cannot be used: {error}')
        grant = await self.check_token(request, token, ' at login')
        if grant is None:
            return login_page(request, 'That token is not valid.')
        name = grant.label or name
        LOG.info('login of %s as %s%s', request.remote, grant.role.value,
                 f' ({name})' if name else '')
        response = web.Response(status=303, headers={'Location': '/'})
        session_id = self.sessions.start(grant.role, time.monotonic(), name)
        response.set_cookie(COOKIE, session_id, httponly=True, samesite='Strict',
                            secure=self.tls, path='/')
        return response

    def logout(self, request: web.Request) -> web.Response:
        """End the request's session; the page goes to the login form."""
        session_id = request.get(SESSION)
        if session_id is not None and self.sessions.end(session_id):
            LOG.info('log out of %s', request.remote)
        response = web.Response(status=303, headers={'Location': '/login'})
        response.del_cookie(COOKIE, path='/')
        return response

    @web.middleware
    async def middleware(self, request: web.Request, handler: Handler) -> web.StreamResponse:
        """Let in who may come in; put the security headers on every answer."""
        try:
            response = await self._admit(request, handler)
        except web.HTTPException as error:  # 404, 413, ...: an answer too
            self._secure(request, error)
            raise
        self._secure(request, response)
        return response

    def _secure(self, request: web.Request, response: web.StreamResponse) -> None:
        """Put the security headers on ``response`` (not yet sent)."""
        if response.prepared:  # a WebSocket, whose handshake was answered long ago
            return
        host = request.host if HOST_PATTERN.match(request.host or '') else ''
        response.headers['Content-Security-Policy'] = content_security_policy(host, self.tls)
        response.headers['X-Frame-Options'] = 'DENY'
        response.headers['X-Content-Type-Options'] = 'nosniff'
        response.headers['Referrer-Policy'] = 'no-referrer'
        response.headers['Cache-Control'] = 'no-store'
        response.headers['Cross-Origin-Opener-Policy'] = 'same-origin'
        response.headers['Cross-Origin-Resource-Policy'] = 'same-origin'

    async def _admit(self, request: web.Request, handler: Handler) -> web.StreamResponse:
        """
        Let in a login session always; a token only from an address that has not failed often.

        A session is checked first and never refused for failures, so that no traffic without
        a credential can keep a logged-in page from its stop or its reconnect.
        """
        if request.path in PUBLIC_PATHS:
            return await handler(request)
        role = self.session_of(request)
        if role is not None:
            request[SESSION] = request.cookies[COOKIE]
            request[NAME] = self.sessions.name_of(request[SESSION])
        else:
            authorization = request.headers.get('Authorization', '')
            if not authorization.startswith('Bearer '):
                return login_page(request, '')
            if self.blocked(request):
                return too_many()
            grant = await self.check_token(request, authorization[len('Bearer '):].strip(), '')
            if grant is None:
                return login_page(request, '')
            role, request[NAME] = grant.role, grant.label
        if request.method != 'GET' or request.headers.get('Upgrade', '').lower() == 'websocket':
            if not same_origin(request):
                LOG.warning('refused %s %s from %s: from another site (Origin %r)',
                            request.method, request.path, request.remote,
                            request.headers.get('Origin'))
                return web.Response(status=403, text='403: requests from other sites are '
                                                     'refused\n')
        request[ROLE] = role
        return await handler(request)


def too_many() -> web.Response:
    """Return the answer to an address that failed too often."""
    return web.Response(status=429, text='429: too many failed attempts from this address; '
                                         'wait a minute\n', headers={'Retry-After': '60'})


def login_page(request: web.Request, problem: str) -> web.Response:
    """Return the login form (status 401): no script, nothing of the robot."""
    if request.path.startswith(('/ws', '/api/', '/static/')):
        return web.Response(status=401, text='401: log in first (open the URL robot-sm web '
                                             'printed)\n')
    note = f'<p class="problem">{html.escape(problem)}</p>' if problem else ''
    body = ('<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
            '<meta name="viewport" content="width=device-width, initial-scale=1">'
            '<link rel="icon" href="data:,"><title>robot_sm: log in</title></head><body>'
            '<h1>robot_sm web console</h1>'
            f'{note}<p>Open the address <code>robot-sm web</code> printed, or paste its token:</p>'
            '<form method="post" action="/login"><input name="token" type="password" '
            'autocomplete="off" aria-label="token" required> <input name="name" '
            'autocomplete="nickname" aria-label="your name" placeholder="your name (optional)" '
            'maxlength="32"> <button>Log in</button></form>'
            '<p>With a shared token, your name tells your commands from those of others at the '
            'same address.</p></body></html>')
    return web.Response(status=401, text=body, content_type='text/html')
