"""
The web console refuses whoever it should, and a refusal changes nothing on the robot.

A suite (with ScriptedNavigation, no robot) and the console's server run in this process; each
test knocks on the server as a stranger, a guesser, a watcher with the read-only token, another
site, or a broken page would, over real HTTP and WebSocket connections, and checks the refusal
and that the suite's mode, e-stop and waypoints are as they were.
"""

import os
import pathlib
import shutil
import ssl
import subprocess
from typing import Iterator, Optional

import aiohttp
from operator_suite import scripted
import pytest
from robot_sm.bringup.running_suite import RunningSuite
from robot_sm.client import operator
from robot_sm.frontends.web.gate import COOKIE, Gate
from robot_sm.frontends.web.server import MAX_MESSAGE, WebServer, WebServerThread
from robot_sm.frontends.web.tokens import AccessTokens, FailedAttempts
from robot_sm.testing import RosHarness
from web_console_http import call, request, Served, State, websocket

OPERATOR = 'operator-token-for-the-security-tests-0123456789'
READ_ONLY = 'read-only-token-for-the-security-tests-0123456789'
BEARER = {'Authorization': f'Bearer {OPERATOR}'}


#: Who the commands of a page on this computer name.
PAGE_OPERATOR = operator('web@127.0.0.1', surface='web', address='127.0.0.1')


@pytest.fixture(scope='module')
def served() -> Iterator[Served]:
    harness = RosHarness(namespace=f'/web_security_{os.getpid()}')
    suite: Optional[RunningSuite] = None
    server: Optional[WebServerThread] = None
    try:
        suite = RunningSuite(namespace=harness.namespace, context=harness.context,
                             parameters=scripted())
        # The test's own calls are those of the operator at the page (on this computer).
        suite.client = suite.client.with_operator(PAGE_OPERATOR)
        for x, y in ((1.0, 2.0), (3.0, 1.5)):
            assert suite.client.add_waypoint(x, y).success
        assert suite.client.set_mode('autonomy').success
        gate = Gate(AccessTokens(OPERATOR, READ_ONLY), tls=False)
        server = WebServerThread(WebServer(harness.context, harness.namespace, gate, port=0))
        yield Served(suite, server)
    finally:
        if server is not None:
            server.close()
        if suite is not None:
            suite.close()
        harness.shutdown()


@pytest.fixture
def unchanged(served: Served) -> Iterator[State]:
    """Check that the suite's state is the same after the test as before it."""
    before = served.state()
    yield before
    assert served.state() == before


# -- without a token, with a wrong one ---------------------------------------------------------


@pytest.mark.parametrize('path', ['/', '/static/js/main.js', '/static/style.css',
                                  '/api/session'])
def test_without_a_token_nothing_is_served(served: Served, unchanged: State, path: str) -> None:
    status, headers, body, _ = request('GET', served.url + path)
    assert status == 401
    assert 'STOP' not in body and 'import' not in body  # neither the page nor its scripts


def test_without_a_token_the_websocket_and_the_stop_are_refused(served: Served,
                                                                unchanged: State) -> None:
    with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
        websocket(served.url, {}, [call('stop')], 1)
    assert refused.value.status == 401
    assert request('POST', served.url + '/api/stop', data='{}')[0] == 401


def test_a_wrong_token_is_refused_everywhere(served: Served, unchanged: State) -> None:
    wrong = {'Authorization': 'Bearer ' + OPERATOR[:-1] + 'X'}
    assert request('GET', served.url + '/', headers=wrong)[0] == 401
    assert request('POST', served.url + '/api/stop', headers=wrong)[0] == 401
    assert request('GET', served.url + '/login?token=' + READ_ONLY[:-1])[0] == 401
    assert request('GET', served.url + '/', headers={'Cookie': f'{COOKIE}=guess'})[0] == 401
    with pytest.raises(aiohttp.WSServerHandshakeError):
        websocket(served.url, wrong, [call('stop')], 1)


def test_failed_attempts_are_rate_limited_even_for_the_right_token(served: Served,
                                                                   unchanged: State) -> None:
    limit = FailedAttempts().limit
    source = '127.0.0.2'  # an address of its own: the other tests' address is not blocked
    for _ in range(limit):
        status = request('GET', served.url + '/login?token=wrong', source=source)[0]
        assert status == 401
    assert request('GET', served.url + f'/login?token={OPERATOR}', source=source)[0] == 429
    assert request('POST', served.url + '/api/stop', headers=BEARER, source=source)[0] == 429
    assert request('GET', served.url + '/', headers=BEARER)[0] == 200  # 127.0.0.1 is not


# -- a login, and what every answer carries ----------------------------------------------------


def test_a_login_sets_a_strict_http_only_session_cookie_that_is_not_the_token(
        served: Served, unchanged: State) -> None:
    status, headers, _, cookies = request('GET', served.url + f'/login?token={OPERATOR}')
    assert status == 303 and headers['Location'] == '/'
    cookie = cookies[COOKIE]
    assert cookie['httponly'] and cookie['samesite'] == 'Strict' and cookie['path'] == '/'
    assert OPERATOR not in cookie.value and len(cookie.value) >= 32
    status, _, body, _ = request('GET', served.url + '/',
                                 headers={'Cookie': f'{COOKIE}={cookie.value}'})
    assert status == 200 and 'id="stop"' in body
    # The login form does the same, and refuses a wrong token with the form again.
    form = {'Content-Type': 'application/x-www-form-urlencoded'}
    status, _, _, cookies = request('POST', served.url + '/login', headers=form,
                                    data=f'token={OPERATOR}')
    assert status == 303 and cookies[COOKIE].value != cookie.value
    status, _, body, cookies = request('POST', served.url + '/login', headers=form,
                                       data='token=nope')
    assert status == 401 and 'That token is not valid' in body and COOKIE not in cookies
    # A name that cannot name an operator is refused, and written back escaped.
    status, _, body, cookies = request('POST', served.url + '/login', headers=form,
                                       data=f'token={OPERATOR}&name=%3Cscript%3E')
    assert status == 401 and COOKIE not in cookies
    assert 'cannot name an operator' in body and '<script>' not in body


def test_every_answer_forbids_framing_and_inline_script(served: Served, unchanged: State) -> None:
    for path, headers in (('/', BEARER), ('/static/js/link.js', BEARER), ('/', {}),
                          ('/login', {})):
        _, answer, _, _ = request('GET', served.url + path, headers=headers)
        policy = answer['Content-Security-Policy']
        assert "script-src 'self'" in policy and "frame-ancestors 'none'" in policy
        assert 'unsafe-inline' not in policy and 'unsafe-eval' not in policy
        assert answer['X-Frame-Options'] == 'DENY'
        assert answer['X-Content-Type-Options'] == 'nosniff'
    _, _, page, _ = request('GET', served.url + '/', headers=BEARER)
    assert '<script>' not in page and 'onclick' not in page and 'style="' not in page


# -- the read-only token -----------------------------------------------------------------------


def test_a_read_only_page_watches_but_every_control_is_refused(
        served: Served, unchanged: State) -> None:
    watcher = {'Authorization': f'Bearer {READ_ONLY}'}
    waypoint_id = unchanged[2][0][0]
    controls = [call('stop', 1), call('release', 2), call('mode', 3, mode='stopped'),
                call('waypoint_add', 4, x=0.5, y=0.5),
                call('waypoint_remove', 5, id=waypoint_id),
                call('follow_start', 6, mode='single'), call('explore_start', 7),
                call('goal', 8, x=1.0, y=1.0), call('reverse', 9, on=True)]
    answers, closed = websocket(served.url, watcher, controls, len(controls))
    assert closed is None and len(answers) == len(controls)
    for answer in answers:
        assert answer['success'] is False and answer['message'].startswith('read-only'), answer
    status, _, body, _ = request('POST', served.url + '/api/stop', headers=watcher, data='{}')
    assert status == 403 and 'read-only' in body


# -- another site, an oversized or malformed message -------------------------------------------


def test_a_websocket_from_another_site_is_refused(served: Served, unchanged: State) -> None:
    for origin in ('http://evil.example', 'null', served.url.replace('127.0.0.1', 'localhost')):
        with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
            websocket(served.url, {**BEARER, 'Origin': origin}, [call('stop')], 1)
        assert refused.value.status == 403
    status, _, _, _ = request('POST', served.url + '/api/stop', data='{}',
                              headers={**BEARER, 'Origin': 'http://evil.example'})
    assert status == 403
    answers, _ = websocket(served.url, {**BEARER, 'Origin': served.url},
                           [call('select_robot', namespace=served.suite.namespace)], 1)
    assert answers[0]['success'] is True  # the console's own page is let in


def test_an_oversized_message_closes_the_socket_and_does_nothing(
        served: Served, unchanged: State) -> None:
    padding = 'x' * (MAX_MESSAGE + 1)
    answers, closed = websocket(served.url, BEARER, [call('stop', routine=padding)], 1)
    assert answers == [] and closed == aiohttp.WSCloseCode.MESSAGE_TOO_BIG
    status, _, _, _ = request('POST', served.url + '/api/stop', headers=BEARER,
                              data='{"namespace": "' + 'x' * 20000 + '"}')
    assert status == 413


@pytest.mark.parametrize('message, says', [
    ('not json', 'not a JSON message'),
    ('[1, 2]', 'must be a JSON object'),
    ('{"type": "call", "id": 1, "action": "self_destruct"}', "unknown action 'self_destruct'"),
    ('{"type": "call", "action": "stop"}', 'whole number id'),
    ('{"type": "call", "id": 1, "action": "waypoint_add", "args": {"x": NaN, "y": 0}}',
     'not a JSON message'),
    ('{"type": "call", "id": 1, "action": "waypoint_add", "args": {"x": 1e999, "y": 0}}',
     'x must be finite'),
    ('{"type": "call", "id": 1, "action": "waypoint_add", "args": {"x": "1", "y": 0}}',
     'x must be a number'),
    ('{"type": "call", "id": 1, "action": "waypoint_add", "args": {"x": 1}}',
     "argument 'y' is missing"),
    ('{"type": "call", "id": 1, "action": "mode", "args": {"mode": "turbo"}}',
     'mode must be one of stopped, autonomy, teleop'),
    ('{"type": "call", "id": 1, "action": "stop", "args": {"now": true}}',
     "unknown argument 'now'"),
    ('{"type": "call", "id": 1, "action": "waypoint_remove", "args": {"id": -5}}',
     'must be within -1'),
    ('{"type": "call", "id": 1, "action": "mode", "args": []}', 'args: must be an object'),
])
def test_a_malformed_message_is_answered_with_an_error_and_changes_nothing(
        served: Served, unchanged: State, message: str, says: str) -> None:
    answers, closed = websocket(served.url, BEARER, [message, call('waypoint_remove', 9,
                                                                   id=999999)], 2)
    assert closed is None
    assert answers[0]['type'] == 'error' and says in answers[0]['message'], answers[0]
    # The socket still works, and a call naming a waypoint that is not there is refused.
    assert answers[1]['type'] == 'result' and answers[1]['success'] is False
    assert 'not in the list' in answers[1]['message']


# -- TLS ---------------------------------------------------------------------------------------


def test_tls_serves_https_with_a_secure_cookie(served: Served, tmp_path: pathlib.Path) -> None:
    if shutil.which('openssl') is None:
        pytest.skip('openssl is not installed (apt-get install openssl)')
    cert, key = tmp_path / 'cert.pem', tmp_path / 'key.pem'
    subprocess.run(['openssl', 'req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1',
                    '-subj', '/CN=127.0.0.1', '-keyout', str(key), '-out', str(cert)],
                   check=True, capture_output=True)
    from robot_sm.frontends.web.main import tls_context
    context = tls_context(cert, key)
    suite = served.suite
    server = WebServerThread(WebServer(suite.context, suite.namespace,
                                       Gate(AccessTokens(OPERATOR), tls=True), port=0,
                                       ssl_context=context))
    try:
        assert server.url.startswith('https://')
        trust = ssl.create_default_context(cafile=str(cert))
        trust.check_hostname = False
        status, _, _, cookies = request('GET', server.url + f'/login?token={OPERATOR}',
                                        ssl_context=trust)
        assert status == 303 and cookies[COOKIE]['secure']
        with pytest.raises(aiohttp.ClientError):
            request('GET', server.url.replace('https', 'http') + '/', headers=BEARER)
    finally:
        server.close()
