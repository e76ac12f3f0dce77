"""
The web console's pure parts, with no ROS, no server and time injected.

Tokens and their files, failed attempts, the page's messages, the rate limits of what a page is
sent, and the map picture.
"""

import io
import pathlib
import types

import pytest
from robot_sm.frontends.web.map_image import map_picture, MAX_SIDE
from robot_sm.frontends.web.outbox import Outbox
from robot_sm.frontends.web.protocol import Call, parse, Ping, ProtocolError
from robot_sm.frontends.web.tokens import (
    AccessTokens,
    FailedAttempts,
    new_token,
    read_token_file,
    Role,
    Sessions,
    TokenError,
)
from robot_sm.frontends.web.views import path_view, thinned

# -- tokens --------------------------------------------------------------------------------------


def test_a_token_made_at_start_has_256_bits_and_is_new_every_time() -> None:
    tokens = {new_token() for _ in range(100)}
    assert len(tokens) == 100
    assert all(len(token) == 43 for token in tokens)  # 32 bytes in base64url


def test_tokens_grant_their_role_and_nothing_else() -> None:
    operator, watcher = new_token(), new_token()
    tokens = AccessTokens(operator, watcher)
    assert tokens.role_of(operator) is Role.OPERATOR
    assert tokens.role_of(watcher) is Role.READ_ONLY
    for wrong in ('', operator[:-1], operator + 'x', operator.upper(), 'é' * 43):
        assert tokens.role_of(wrong) is None
    assert AccessTokens(operator).role_of(watcher) is None
    with pytest.raises(TokenError, match='must differ'):
        AccessTokens(operator, operator)


def test_a_token_file_others_may_read_is_refused(tmp_path: pathlib.Path) -> None:
    path = tmp_path / 'token'
    path.write_text(new_token() + '\n')
    for mode in (0o644, 0o640, 0o604, 0o660, 0o601):
        path.chmod(mode)
        with pytest.raises(TokenError, match=f'run: chmod 600 {path}'):
            read_token_file(path)
    path.chmod(0o600)
    assert read_token_file(path) == [(path.read_text().strip(), '')]


@pytest.mark.parametrize('content, says', [
    ('short', 'at least 22 characters'),
    ('a' * 30 + '!', 'only letters, digits'),
    ('', 'at least 22 characters'),
])
def test_a_weak_or_odd_token_file_is_refused(tmp_path: pathlib.Path, content: str,
                                             says: str) -> None:
    path = tmp_path / 'token'
    path.write_text(content)
    path.chmod(0o600)
    with pytest.raises(TokenError, match=says):
        read_token_file(path)
    with pytest.raises(TokenError, match='cannot read'):
        read_token_file(tmp_path / 'missing')


def test_sessions_carry_roles_and_forget_the_oldest() -> None:
    sessions = Sessions(limit=2)
    first = sessions.start(Role.OPERATOR, 0.0)
    second = sessions.start(Role.READ_ONLY, 0.0)
    assert sessions.role_of(first, 1.0) is Role.OPERATOR
    assert sessions.role_of(second, 1.0) is Role.READ_ONLY
    sessions.start(Role.OPERATOR, 2.0)
    assert sessions.role_of(first, 3.0) is None and sessions.role_of(second, 3.0) is Role.READ_ONLY
    assert sessions.role_of('', 3.0) is None


def test_a_session_ends_after_its_idle_time_unless_used_and_at_a_log_out() -> None:
    sessions = Sessions(idle_timeout=60.0)
    used, idle, ended, open_page = (sessions.start(Role.OPERATOR, 0.0) for _ in range(4))
    for second in range(0, 200, 30):  # every request uses it
        assert sessions.role_of(used, float(second)) is Role.OPERATOR
    sessions.opened(open_page)  # a page of it stays open (twice over) for 500 s
    sessions.opened(open_page)
    sessions.closed(open_page, 10.0)
    assert sessions.role_of(open_page, 400.0) is Role.OPERATOR
    sessions.closed(open_page, 500.0)
    assert sessions.role_of(open_page, 559.0) is Role.OPERATOR
    assert sessions.role_of(open_page, 620.0) is None
    assert sessions.role_of(idle, 59.0) is Role.OPERATOR
    assert sessions.role_of(idle, 119.5) is None  # 60.5 s unused
    assert sessions.role_of(idle, 120.0) is None  # and gone for good
    assert sessions.end(ended) and not sessions.end(ended)
    assert sessions.role_of(ended, 1.0) is None
    with pytest.raises(ValueError, match='positive'):
        Sessions(idle_timeout=0.0)


def test_failed_attempts_block_only_the_address_that_failed() -> None:
    attempts = FailedAttempts(limit=3, window=60.0, total_limit=5)
    for second in range(3):
        assert not attempts.blocked('10.0.0.1', float(second))
        attempts.failed('10.0.0.1', float(second))
    assert attempts.blocked('10.0.0.1', 3.0)
    assert not attempts.blocked('10.0.0.2', 3.0)
    assert not attempts.slowed(3.0)
    attempts.failed('10.0.0.2', 10.0)
    attempts.failed('10.0.0.3', 10.0)
    # Five in the window, from anywhere: token checks are slowed, nobody else is refused.
    assert attempts.slowed(10.0) and not attempts.blocked('10.0.0.4', 10.0)
    assert not attempts.blocked('10.0.0.1', 60.5)  # its first failure has left the window
    assert not attempts.slowed(60.5)
    assert attempts.total(70.5) == 0


def test_failed_attempts_of_a_thousand_addresses_stay_bounded() -> None:
    attempts = FailedAttempts(limit=3, window=60.0, total_limit=100, max_addresses=256)
    for number in range(1000):
        attempts.failed(f'10.0.{number // 256}.{number % 256}', number * 0.01)
    assert attempts.total(10.0) <= 257 and attempts.slowed(10.0)
    assert not attempts.blocked('10.0.0.1', 10.0)  # forgotten, not refused


# -- what a page may send ------------------------------------------------------------------------


def test_a_page_s_messages_are_read_with_their_defaults() -> None:
    assert parse('{"type": "ping", "seq": 7}') == Ping(7)
    assert parse('{"type": "call", "id": 3, "action": "waypoint_add", '
                 '"args": {"x": 1, "y": 2.5}}') == Call(
        3, 'waypoint_add', {'x': 1.0, 'y': 2.5, 'yaw': 0.0, 'routine': '', 'position': -1})
    assert parse('{"type": "call", "id": 4, "action": "stop"}') == Call(4, 'stop', {})


@pytest.mark.parametrize('message, says', [
    ('{"type": "call", "id": true, "action": "stop"}', 'whole number id'),
    ('{"type": "call", "id": 1, "action": "follow_start", "args": {"mode": "single", '
     '"reverse": 1}}', 'reverse must be true or false'),
    ('{"type": "call", "id": 1, "action": "waypoint_routine", "args": {"id": 1, '
     '"routine": "a\\nb"}}', 'printable text'),
    ('{"type": "call", "id": 1, "action": "select_robot", "args": {"namespace": "' + 'n' * 200
     + '"}}', 'at most 128'),
    ('{"type": "hello"}', 'unknown message type'),
    ('{"type": "ping", "seq": -1}', 'whole number seq'),
    ('[' * 100000 + ']' * 100000, 'not a JSON message'),
])
def test_a_malformed_message_is_refused_saying_why(message: str, says: str) -> None:
    with pytest.raises(ProtocolError, match=says):
        parse(message)


# -- what a page is sent -------------------------------------------------------------------------


def test_each_kind_is_sent_at_once_then_no_faster_than_its_interval_newest_only() -> None:
    outbox = Outbox({'pose': 0.1, 'state': 0.0})
    assert outbox.due({'pose': 1, 'state': 1}, 0.0) == (['pose', 'state'], None)
    outbox.sent('pose', 1, 0.0)
    outbox.sent('state', 1, 0.0)
    assert outbox.due({'pose': 1, 'state': 1}, 0.05) == ([], None)  # nothing new
    ready, wait = outbox.due({'pose': 5, 'state': 2}, 0.04)  # four poses came meanwhile
    assert ready == ['state'] and wait == pytest.approx(0.06)
    assert outbox.due({'pose': 5, 'state': 2}, 0.1) == (['pose', 'state'], None)
    outbox.sent('pose', 5, 0.1)  # only the newest is sent
    outbox.reset()
    assert outbox.due({'pose': 5}, 0.11) == (['pose'], None)


def test_a_long_path_is_thinned_to_its_limit_keeping_both_ends() -> None:
    points = list(range(1001))
    kept = thinned(points, 400)
    assert len(kept) == 400 and kept[0] == 0 and kept[-1] == 1000
    assert kept == sorted(kept)

    def stamped(x: float) -> types.SimpleNamespace:
        return types.SimpleNamespace(pose=types.SimpleNamespace(
            position=types.SimpleNamespace(x=x, y=2 * x)))
    msg = types.SimpleNamespace(poses=[stamped(i * 0.01) for i in range(1000)],
                                header=types.SimpleNamespace(frame_id='map'))
    view = path_view(msg)
    assert len(view['points']) == 400 and view['points'][-1] == [9.99, 19.98]


# -- the map picture -----------------------------------------------------------------------------


def test_the_map_picture_is_a_png_north_up_with_four_classes() -> None:
    image = pytest.importorskip('PIL.Image')
    width, height = 4, 3
    # Row 0 (the lowest y) is unknown, occupied, free, in between; the rest is free.
    data = [-1, 100, 0, 50] + [0] * 8
    picture = map_picture(data, width, height)
    assert picture.known == pytest.approx(11 / 12)
    decoded = image.open(io.BytesIO(picture.png)).convert('RGB')
    assert decoded.size == (4, 3)
    bottom = [decoded.getpixel((x, 2)) for x in range(4)]
    assert bottom == [(0xc9, 0xcd, 0xd3), (0x22, 0x26, 0x2e), (255, 255, 255),
                      (0x8c, 0x90, 0x96)]
    assert decoded.getpixel((1, 0)) == (255, 255, 255)


def test_a_map_of_the_wrong_size_is_refused() -> None:
    with pytest.raises(ValueError, match='has 5 cells, not 2 x 2'):
        map_picture([0] * 5, 2, 2)
    with pytest.raises(ValueError, match='at most'):
        map_picture([], MAX_SIDE + 1, 1)
