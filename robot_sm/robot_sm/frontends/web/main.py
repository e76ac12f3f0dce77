"""
``robot-sm web``: serve the operator console until Ctrl-C, one process, one rclpy context.

Checks everything it is given before it starts (a token file others may read, a missing
certificate, a bad port: one line on stderr, exit code 2), prints the address to open, with the
token when it made one, and serves until SIGINT or SIGTERM (exit code 0).
"""

import argparse
import asyncio
import ipaddress
import logging
import pathlib
import signal
import socket
import ssl
import sys
import threading
from typing import Any, List, Optional, Tuple

import rclpy
from rclpy.context import Context
from rclpy.signals import SignalHandlerOptions
from robot_sm.frontends.web.gate import Gate
from robot_sm.frontends.web.server import WebServer
from robot_sm.frontends.web.tokens import (
    AccessTokens,
    new_token,
    read_token_file,
    TokenError,
    Tokens,
)

DEFAULT_PORT = 8080


class WebOptionError(ValueError):
    """An option of ``robot-sm web`` cannot be used; the message says why."""


def tls_context(certfile: Optional[pathlib.Path],
                keyfile: Optional[pathlib.Path]) -> Optional[ssl.SSLContext]:
    """Return a TLS server context (TLS 1.2 at least) for the two files, or None without."""
    if certfile is None and keyfile is None:
        return None
    if certfile is None or keyfile is None:
        raise WebOptionError('--certfile and --keyfile go together')
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    try:
        context.load_cert_chain(str(certfile), str(keyfile))
    except (OSError, ssl.SSLError) as error:
        raise WebOptionError(f'cannot use the certificate {certfile} with the key {keyfile}: '
                             f'{error}') from None
    return context


def access_tokens(args: argparse.Namespace) -> Tuple[AccessTokens, Optional[str], Optional[str]]:
    """Return the tokens the options ask for, and the operator and read-only ones made now."""
    try:
        made = None if args.token_file else new_token()
        operator: Tokens = made or read_token_file(args.token_file)
        read_only: Optional[Tokens] = None
        made_read_only = None
        if args.read_only_token_file:
            read_only = read_token_file(args.read_only_token_file)
        elif args.read_only:
            read_only = made_read_only = new_token()
        return AccessTokens(operator, read_only), made, made_read_only
    except TokenError as error:
        raise WebOptionError(str(error)) from None


def expected_robots(args: argparse.Namespace) -> List[str]:
    """Return the robots the ``--fleet`` file names (the selector shows those not found)."""
    from robot_sm.client.roster import load_fleet_file, RosterError
    if getattr(args, 'fleet', None) is None:
        return []
    try:
        return load_fleet_file(args.fleet)
    except RosterError as error:
        raise WebOptionError(str(error)) from None


def is_loopback(host: str) -> bool:
    """Return whether ``host`` is a loopback address (or localhost)."""
    if host == 'localhost':
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def announce(server: WebServer, args: argparse.Namespace, operator_token: Optional[str],
             read_only_token: Optional[str]) -> List[str]:
    """Return the lines that tell the operator where to open the console."""
    base = server.url
    if server.host in ('0.0.0.0', '::'):
        base = base.replace(server.host, socket.gethostname(), 1)
    lines = [f'robot-sm web: the console of {server.console.default} is served at {base}/']
    if operator_token:
        lines.append(f'  operator:  {base}/login?token={operator_token}')
    else:
        lines.append(f'  operator:  {base}/login?token=<the token in {args.token_file}>')
    if read_only_token:
        lines.append(f'  read-only: {base}/login?token={read_only_token}')
    elif args.read_only_token_file:
        lines.append(f'  read-only: {base}/login?token=<the token in '
                     f'{args.read_only_token_file}>')
    if not is_loopback(server.host) and server.ssl_context is None:
        lines.append('  WARNING: served on the network without TLS: the token and everything '
                     'the page shows travel in clear text; use --certfile and --keyfile')
    lines.append('  Ctrl-C stops it (a robot that watches the operator heartbeat then stops).')
    return lines


class StopRequest:
    """
    SIGINT or SIGTERM, taken from the console's first line: remembered, and waking the loop.

    Nothing is interrupted by a signal: the start goes on to its end (a few tenths of a second
    once the modules are imported) and the console then stops in order, so that no thread meets
    a context shut down under it.
    """

    def __init__(self) -> None:
        """Take both signals now."""
        self._requested = threading.Event()
        self._loop: Optional[asyncio.AbstractEventLoop] = None
        self._event: Optional[asyncio.Event] = None
        for sig in (signal.SIGINT, signal.SIGTERM):
            signal.signal(sig, self._on_signal)

    def _on_signal(self, signum: int, frame: Any) -> None:
        self._requested.set()
        loop, event = self._loop, self._event
        if loop is not None and event is not None:
            loop.call_soon_threadsafe(event.set)

    def is_set(self) -> bool:
        """Return whether a stop was asked for."""
        return self._requested.is_set()

    async def wait(self) -> None:
        """Wait on the running loop until a stop is asked for (at once if it was)."""
        self._event = asyncio.Event()
        self._loop = asyncio.get_running_loop()
        if self._requested.is_set():
            return
        await self._event.wait()


async def serve(server: WebServer, stop: StopRequest) -> None:
    """Serve until a stop is asked for; then stop ``server``."""
    try:
        await stop.wait()
    finally:
        await server.stop()


def run_web(args: argparse.Namespace) -> int:
    """Serve the console with the options of ``robot-sm web``; return the exit code."""
    stop = StopRequest()
    logging.basicConfig(level=logging.INFO, format='%(asctime)s %(name)s: %(message)s',
                        stream=sys.stderr)
    try:
        if not 0 <= args.port <= 65535:
            raise WebOptionError(f'--port {args.port}: must be within 0..65535')
        if not args.session_idle > 0:
            raise WebOptionError(f'--session-idle {args.session_idle:g}: must be positive')
        tokens, operator, read_only = access_tokens(args)
        context_tls = tls_context(args.certfile, args.keyfile)
        expected = expected_robots(args)
    except WebOptionError as error:
        print(f'robot-sm web: {error}', file=sys.stderr)
        return 2
    context = Context()
    # rclpy's handlers would shut the context down under the console's threads at a signal.
    rclpy.init(context=context, signal_handler_options=SignalHandlerOptions.NO)
    gate = Gate(tokens, context_tls is not None, session_idle=args.session_idle)
    server = WebServer(context, args.namespace, gate, args.host, args.port, context_tls,
                       incidents=getattr(args, 'incidents_dir', None))
    server.console.expected = expected
    loop = asyncio.new_event_loop()
    try:
        try:
            loop.run_until_complete(server.start())
        except OSError as error:
            print(f'robot-sm web: cannot listen on {args.host}:{args.port}: {error.strerror}',
                  file=sys.stderr)
            loop.run_until_complete(server.stop())
            return 2
        if not stop.is_set():
            print('\n'.join(announce(server, args, operator, read_only)), flush=True)
        loop.run_until_complete(serve(server, stop))
        return 0
    finally:
        loop.close()
        rclpy.try_shutdown(context=context)
