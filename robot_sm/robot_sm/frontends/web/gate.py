"""
The web console's door: who is let in, and the headers every answer carries.

Every request but the login needs a credential: the session cookie a login sets, or the token
as ``Authorization: Bearer TOKEN`` (for scripts). A wrong one is a failed attempt: logged with
the address, and an address that failed too often is refused (429) for a while, even with the
right token (:class:`~robot_sm.frontends.web.tokens.FailedAttempts`). Requests that change
something (the WebSocket handshake, a POST) must come from a page of this server: an ``Origin``
header naming another site is refused (403), which stops cross-site WebSocket hijacking. Every
answer carries a Content Security Policy without inline script, and forbids framing.
"""

import logging
import re
import time
from typing import Awaitable, Callable, Optional

from aiohttp import web
from robot_sm.frontends.web.tokens import AccessTokens, FailedAttempts, Role, Sessions

LOG = logging.getLogger('robot_sm.web')
COOKIE = 'robot_sm_session'
#: Where a request admitted carries the role its credential grants.
ROLE = web.RequestKey('role', Role)
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
                 failures: Optional[FailedAttempts] = None) -> None:
        self.tokens = tokens
        self.tls = tls
        self.sessions = Sessions()
        self.failures = failures or FailedAttempts()

    def refused(self, request: web.Request, why: str) -> None:
        """Count and log a failed attempt of the request's address."""
        address = request.remote or '?'
        count = self.failures.failed(address, time.monotonic())
        LOG.warning('refused %s %s from %s: %s (%d failed in the last %g s)', request.method,
                    request.path, address, why, count, self.failures.window)

    def blocked(self, request: web.Request) -> bool:
        """Return whether the request's address is refused for failing too often."""
        return self.failures.blocked(request.remote or '?', time.monotonic())

    def role_of(self, request: web.Request) -> Optional[Role]:
        """Return the role the request's credential grants; count a wrong one (None)."""
        session_id = request.cookies.get(COOKIE)
        if session_id is not None:
            role = self.sessions.role_of(session_id)
            if role is None:
                self.refused(request, 'unknown session (log in again)')
            return role
        authorization = request.headers.get('Authorization', '')
        if authorization.startswith('Bearer '):
            role = self.tokens.role_of(authorization[len('Bearer '):].strip())
            if role is None:
                self.refused(request, 'wrong token')
            return role
        return None

    def login(self, request: web.Request, token: str) -> web.Response:
        """Check a token given to the login; set the session cookie and go to the page."""
        if self.blocked(request):
            return too_many()
        role = self.tokens.role_of(token)
        if role is None:
            self.refused(request, 'wrong token at login')
            return login_page(request, 'That token is not valid.')
        LOG.info('login of %s as %s', request.remote, role.value)
        response = web.Response(status=303, headers={'Location': '/'})
        response.set_cookie(COOKIE, self.sessions.start(role), httponly=True, samesite='Strict',
                            secure=self.tls, path='/')
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
        if request.path in PUBLIC_PATHS:
            return await handler(request)
        if self.blocked(request):
            return too_many()
        role = self.role_of(request)
        if role is None:
            return login_page(request, '')
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
    note = f'<p class="problem">{problem}</p>' if problem else ''
    body = ('<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
            '<meta name="viewport" content="width=device-width, initial-scale=1">'
            '<link rel="icon" href="data:,"><title>robot_sm: log in</title></head><body>'
            '<h1>robot_sm web console</h1>'
            f'{note}<p>Open the address <code>robot-sm web</code> printed, or paste its token:</p>'
            '<form method="post" action="/login"><input name="token" type="password" '
            'autocomplete="off" aria-label="token" required> <button>Log in</button></form>'
            '</body></html>')
    return web.Response(status=401, text=body, content_type='text/html')
