"""
Who may use the web console: access tokens, login sessions and the brake on guessing.

No default password exists. The operator token is made at start (:func:`new_token`, 256 bits)
or read from a file only its owner can read (:func:`read_token_file`: one token a line, each
with an optional label, the name of whoever holds it); a read-only token, if given, lets a page
watch without operating. A presented token is compared with each known one in constant time
(:meth:`AccessTokens.grant_of`). A successful login gets a session id of its own (the cookie
holds that id, never the token) that carries the operator's name (the token's label, else the
name given at the login: :func:`checked_name`) and ends when unused for a while or logged out
(:class:`Sessions`), and :class:`FailedAttempts` refuses an address that failed too often and
slows everyone's token checks when many fail, never a session. Pure: no aiohttp, time as an
argument.
"""

import collections
import enum
import hmac
import pathlib
import re
import secrets
import stat
from typing import Deque, Dict, List, NamedTuple, Optional, Sequence, Tuple, Union

#: Random bytes in a token made at start (256 bits; the issue asks for at least 128).
TOKEN_BYTES = 32
#: The shortest token a file may hold: 22 characters of base64url carry 132 bits.
MIN_TOKEN_LENGTH = 22
#: Characters a token may consist of (base64url, as :func:`secrets.token_urlsafe` gives).
TOKEN_CHARACTERS = frozenset('ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_')
#: Seconds a login session may go unused (no page open) before it ends.
DEFAULT_SESSION_IDLE = 3600.0
#: An operator's name given at the login or as a token's label: letters, digits, ``. _ -``.
NAME_PATTERN = re.compile(r'^[A-Za-z0-9._-]{1,32}$')


class Role(enum.Enum):
    """What a page may do."""

    OPERATOR = 'operator'
    READ_ONLY = 'read-only'


class TokenError(ValueError):
    """A token (or its file) cannot be used; the message says why."""


class Grant(NamedTuple):
    """What a token grants: a role, and the name of whoever holds it ('' when unlabelled)."""

    role: Role
    label: str = ''


#: Tokens of one role: one token, or tokens with their labels ('' for none).
Tokens = Union[str, Sequence[Tuple[str, str]]]


def checked_name(name: str, origin: str = 'name') -> str:
    """Return ``name`` (an operator's, '' for none) if it may name one; else raise saying why."""
    if name and not NAME_PATTERN.match(name):
        raise TokenError(f'{origin}: {name!r:.40} cannot name an operator: use 1 to 32 letters, '
                         'digits, dots, dashes or underscores')
    return name


def new_token() -> str:
    """Return a new random token (256 bits, base64url)."""
    return secrets.token_urlsafe(TOKEN_BYTES)


def checked_token(token: str, origin: str) -> str:
    """Return ``token`` if it is long enough and base64url; else raise naming ``origin``."""
    if len(token) < MIN_TOKEN_LENGTH:
        raise TokenError(f'{origin}: the token must have at least {MIN_TOKEN_LENGTH} characters '
                         f'(it has {len(token)}); make one with: python3 -c "import secrets; '
                         'print(secrets.token_urlsafe(32))"')
    if not set(token) <= TOKEN_CHARACTERS:
        raise TokenError(f'{origin}: the token may hold only letters, digits, - and _')
    return token


def read_token_file(path: pathlib.Path) -> List[Tuple[str, str]]:
    """
    Return the tokens in ``path`` with their labels: a line each, ``TOKEN`` or ``TOKEN LABEL``.

    A label names whoever holds the token (``alice``): their pages operate as ``alice@ADDRESS``.
    Empty lines and lines starting with ``#`` are left out.

    :raises TokenError: if the file cannot be read, if its group or others have any access to
        it (``chmod 600`` fixes that), if it holds no token, or if a token is too short or not
        base64url, or a label no name (:func:`checked_name`).
    """
    try:
        mode = path.stat().st_mode
        if mode & (stat.S_IRWXG | stat.S_IRWXO):
            raise TokenError(f'{path}: group or others may access this token file (mode '
                             f'{stat.S_IMODE(mode):o}); run: chmod 600 {path}')
        lines = path.read_text(encoding='utf-8').splitlines()
    except OSError as error:
        raise TokenError(f'{path}: cannot read the token file ({error.strerror})') from None
    except UnicodeDecodeError:
        raise TokenError(f'{path}: the token file is not text') from None
    entries = []
    for number, line in enumerate(lines, 1):
        words = line.split()
        if not words or words[0].startswith('#'):
            continue
        origin = f'{path}:{number}'
        if len(words) > 2:
            raise TokenError(f'{origin}: a line holds a token and at most one label')
        label = checked_name(words[1], origin) if len(words) == 2 else ''
        entries.append((checked_token(words[0], origin), label))
    if not entries:
        checked_token('', str(path))  # says what a token needs
    return entries


def _entries(tokens: Tokens) -> List[Tuple[str, str]]:
    return [(tokens, '')] if isinstance(tokens, str) else list(tokens)


class AccessTokens:
    """The operator tokens and, optionally, read-only ones, each with its label."""

    def __init__(self, operator: Tokens, read_only: Optional[Tokens] = None) -> None:
        """Take the tokens; they must all differ (a shared one could not tell who is who)."""
        self._tokens: List[Tuple[bytes, Grant]] = []
        for role, given in ((Role.OPERATOR, operator), (Role.READ_ONLY, read_only)):
            for token, label in _entries(given or []):
                if any(hmac.compare_digest(token.encode(), known) for known, _ in self._tokens):
                    raise TokenError('every token must differ from the others (the read-only '
                                     'token from the operator token too)')
                self._tokens.append((token.encode(), Grant(role, label)))

    def grant_of(self, presented: str) -> Optional[Grant]:
        """
        Return what ``presented`` grants, or None.

        Every token is compared, each in constant time, so the time taken says nothing about
        which one nearly matched.
        """
        candidate = presented.encode('utf-8', 'replace')
        found = None
        for token, grant in self._tokens:
            if hmac.compare_digest(candidate, token):
                found = grant
        return found

    def role_of(self, presented: str) -> Optional[Role]:
        """Return the role ``presented`` grants, or None."""
        grant = self.grant_of(presented)
        return None if grant is None else grant.role


class Sessions:
    """
    Login sessions: a random id per successful login, the role it carries, its last use.

    A session unused for ``idle_timeout`` seconds is over; while a page of it is open
    (:meth:`opened` to :meth:`closed`) it is in use. :meth:`end` ends one at once (a log out).
    Each carries the name its login gave (:meth:`name_of`).
    """

    def __init__(self, limit: int = 256, idle_timeout: float = DEFAULT_SESSION_IDLE) -> None:
        """Keep at most ``limit`` sessions (the oldest is forgotten first), idle ones ending."""
        if not idle_timeout > 0.0:
            raise ValueError(f'the session idle time must be positive (got {idle_timeout})')
        self.limit = limit
        self.idle_timeout = idle_timeout
        self._sessions: Dict[str, Tuple[Role, float]] = {}
        self._names: Dict[str, str] = {}
        self._open: Dict[str, int] = {}

    def start(self, role: Role, now: float, name: str = '') -> str:
        """Return the id of a new session with ``role`` of operator ``name``, used at ``now``."""
        session_id = secrets.token_urlsafe(TOKEN_BYTES)
        self._sessions[session_id] = (role, now)
        self._names[session_id] = name
        while len(self._sessions) > self.limit:
            self._forget(next(iter(self._sessions)))
        return session_id

    def _forget(self, session_id: str) -> None:
        del self._sessions[session_id]
        self._names.pop(session_id, None)

    def name_of(self, session_id: str) -> str:
        """Return the operator's name session ``session_id`` carries ('' for none, or unknown)."""
        known = self._find(session_id)
        return '' if known is None else self._names.get(known, '')

    def _find(self, session_id: str) -> Optional[str]:
        """Return the known id equal to ``session_id`` (every one compared in constant time)."""
        candidate = session_id.encode('utf-8', 'replace')
        found = None
        for known in self._sessions:
            if hmac.compare_digest(candidate, known.encode()):
                found = known
        return found

    def role_of(self, session_id: str, now: float) -> Optional[Role]:
        """Return the role of session ``session_id`` and count it used at ``now``; else None."""
        known = self._find(session_id)
        if known is None:
            return None
        role, used = self._sessions[known]
        if now - used > self.idle_timeout and not self._open.get(known):
            self._forget(known)
            return None
        self._sessions[known] = (role, max(used, now))
        return role

    def opened(self, session_id: str) -> None:
        """Count a page of session ``session_id`` open: the session is in use until it closes."""
        self._open[session_id] = self._open.get(session_id, 0) + 1

    def closed(self, session_id: str, now: float) -> None:
        """Count a page of session ``session_id`` closed at ``now`` (its last use)."""
        left = self._open.get(session_id, 0) - 1
        if left > 0:
            self._open[session_id] = left
            return
        self._open.pop(session_id, None)
        if session_id in self._sessions:
            self._sessions[session_id] = (self._sessions[session_id][0], now)

    def end(self, session_id: str) -> bool:
        """End session ``session_id`` (a log out); return whether it was one."""
        known = self._find(session_id)
        if known is None:
            return False
        self._forget(known)
        return True


class FailedAttempts:
    """
    Failed token checks by address: past ``limit`` within ``window`` seconds it is refused.

    Only the address that failed is refused (with the right token too, so that a guesser cannot
    tell when it found it). All addresses together failing ``total_limit`` times within the
    window only slow token checks down (:meth:`slowed`): guessing from many addresses gets no
    faster, and nobody is refused for what others did. A login session is never checked here.
    At most ``max_addresses`` addresses are remembered (the oldest failures are forgotten).
    """

    def __init__(self, limit: int = 10, window: float = 60.0, total_limit: int = 100,
                 max_addresses: int = 4096) -> None:
        """Refuse an address after ``limit`` failures; slow all after ``total_limit``."""
        self.limit = limit
        self.window = window
        self.total_limit = total_limit
        self.max_addresses = max_addresses
        self._times: Deque[Tuple[float, str]] = collections.deque()
        self._counts: Dict[str, int] = {}

    def _prune(self, now: float) -> None:
        while self._times and (now - self._times[0][0] >= self.window
                               or len(self._counts) > self.max_addresses):
            _, address = self._times.popleft()
            self._counts[address] -= 1
            if self._counts[address] == 0:
                del self._counts[address]

    def count(self, address: str, now: float) -> int:
        """Return the failures of ``address`` within the window."""
        self._prune(now)
        return self._counts.get(address, 0)

    def total(self, now: float) -> int:
        """Return the failures of all addresses within the window."""
        self._prune(now)
        return len(self._times)

    def blocked(self, address: str, now: float) -> bool:
        """Return whether token checks from ``address`` are refused now."""
        return self.count(address, now) >= self.limit

    def slowed(self, now: float) -> bool:
        """Return whether token checks are slowed down now (too many failures from anywhere)."""
        return self.total(now) >= self.total_limit

    def failed(self, address: str, now: float) -> int:
        """Count a failure of ``address`` at ``now``; return its failures within the window."""
        self._times.append((now, address))
        self._counts[address] = self._counts.get(address, 0) + 1
        return self.count(address, now)
