"""
Who may use the web console: access tokens, login sessions and the brake on guessing.

No default password exists. The operator token is made at start (:func:`new_token`, 256 bits)
or read from a file only its owner can read (:func:`read_token_file`); a read-only token, if
given, lets a page watch without operating. A presented token is compared with each known one in
constant time (:meth:`AccessTokens.role_of`). A successful login gets a session id of its own (the
cookie holds that id, never the token), and :class:`FailedAttempts` refuses an address that
failed too often. Pure: no aiohttp, time as an argument.
"""

import enum
import hmac
import pathlib
import secrets
import stat
from typing import Dict, List, Optional, Tuple

#: Random bytes in a token made at start (256 bits; the issue asks for at least 128).
TOKEN_BYTES = 32
#: The shortest token a file may hold: 22 characters of base64url carry 132 bits.
MIN_TOKEN_LENGTH = 22
#: Characters a token may consist of (base64url, as :func:`secrets.token_urlsafe` gives).
TOKEN_CHARACTERS = frozenset('ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_')


class Role(enum.Enum):
    """What a page may do."""

    OPERATOR = 'operator'
    READ_ONLY = 'read-only'


class TokenError(ValueError):
    """A token (or its file) cannot be used; the message says why."""


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


def read_token_file(path: pathlib.Path) -> str:
    """
    Return the token in ``path`` (one line).

    :raises TokenError: if the file cannot be read, if its group or others have any access to
        it (``chmod 600`` fixes that), or if the token is too short or not base64url.
    """
    try:
        mode = path.stat().st_mode
        if mode & (stat.S_IRWXG | stat.S_IRWXO):
            raise TokenError(f'{path}: group or others may access this token file (mode '
                             f'{stat.S_IMODE(mode):o}); run: chmod 600 {path}')
        token = path.read_text(encoding='utf-8').strip()
    except OSError as error:
        raise TokenError(f'{path}: cannot read the token file ({error.strerror})') from None
    except UnicodeDecodeError:
        raise TokenError(f'{path}: the token file is not text') from None
    return checked_token(token, str(path))


class AccessTokens:
    """The operator token and, optionally, the read-only token."""

    def __init__(self, operator: str, read_only: Optional[str] = None) -> None:
        """Take the tokens; they must differ (a shared one could not tell roles apart)."""
        if read_only is not None and hmac.compare_digest(operator.encode(), read_only.encode()):
            raise TokenError('the read-only token must differ from the operator token')
        self._tokens: List[Tuple[bytes, Role]] = [(operator.encode(), Role.OPERATOR)]
        if read_only is not None:
            self._tokens.append((read_only.encode(), Role.READ_ONLY))

    def role_of(self, presented: str) -> Optional[Role]:
        """
        Return the role ``presented`` grants, or None.

        Every token is compared, each in constant time, so the time taken says nothing about
        which one nearly matched.
        """
        candidate = presented.encode('utf-8', 'replace')
        found = None
        for token, role in self._tokens:
            if hmac.compare_digest(candidate, token):
                found = role
        return found


class Sessions:
    """Login sessions: a random id per successful login, the role it carries."""

    def __init__(self, limit: int = 256) -> None:
        """Keep at most ``limit`` sessions; the oldest is forgotten first."""
        self.limit = limit
        self._roles: Dict[str, Role] = {}

    def start(self, role: Role) -> str:
        """Return the id of a new session with ``role``."""
        session_id = secrets.token_urlsafe(TOKEN_BYTES)
        self._roles[session_id] = role
        while len(self._roles) > self.limit:
            del self._roles[next(iter(self._roles))]
        return session_id

    def role_of(self, session_id: str) -> Optional[Role]:
        """Return the role of session ``session_id``, or None (compared in constant time)."""
        candidate = session_id.encode('utf-8', 'replace')
        found = None
        for known, role in self._roles.items():
            if hmac.compare_digest(candidate, known.encode()):
                found = role
        return found


class FailedAttempts:
    """
    Failed logins by address: past ``limit`` within ``window`` seconds the address is refused.

    All addresses together may fail ``total_limit`` times per window, so that guessing from many
    addresses is slowed down too. While refused, even a right token is refused.
    """

    def __init__(self, limit: int = 10, window: float = 60.0, total_limit: int = 100) -> None:
        """Allow ``limit`` failures an address and ``total_limit`` in all per ``window`` s."""
        self.limit = limit
        self.window = window
        self.total_limit = total_limit
        self._failures: Dict[str, List[float]] = {}

    def _prune(self, now: float) -> None:
        for address in list(self._failures):
            recent = [t for t in self._failures[address] if now - t < self.window]
            if recent:
                self._failures[address] = recent
            else:
                del self._failures[address]

    def count(self, address: str, now: float) -> int:
        """Return the failures of ``address`` within the window."""
        self._prune(now)
        return len(self._failures.get(address, []))

    def blocked(self, address: str, now: float) -> bool:
        """Return whether ``address`` is refused now."""
        self._prune(now)
        total = sum(len(times) for times in self._failures.values())
        return self.count(address, now) >= self.limit or total >= self.total_limit

    def failed(self, address: str, now: float) -> int:
        """Count a failure of ``address`` at ``now``; return its failures within the window."""
        self._failures.setdefault(address, []).append(now)
        return self.count(address, now)
