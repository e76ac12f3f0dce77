"""
Driving through the web console, measured for ``bench_web.py``.

- :func:`measure_drive`: a page's ``drive`` message (over the console's WebSocket, as the page's
  joystick sends it) → the first ``cmd_vel`` with that velocity, and its zero → the first zero,
  against the same OperatorTwist published by a plain rclpy publisher of this process (the
  baseline: the operators' stream without the console), alternating in the same run.
- :func:`measure_joystick`: the whole path from a real page: a mouse press on the joystick of
  headless Chromium (``Input.dispatchMouseEvent`` over the DevTools protocol, timed from before
  the call) → the first moving ``cmd_vel``, and the release → the first zero; and how long the
  DevTools call itself takes (selenium, chromedriver and Chromium; the event has reached the
  page when it returns), which these figures include.
- :func:`hold_joystick`: one page drives (turning in place) while the CPU is measured.
"""

import random
import time
from typing import Any, Callable, Dict, List

from bench_safety import Base
from robot_sm import qos
from robot_sm.contract import OPERATOR_CMD_VEL
from robot_sm.testing import wait_until
from robot_sm_msgs.msg import OperatorTwist

#: Who the bench's pages and calls are: a page logged in with the token (no label, no name).
PAGE_OPERATOR = 'web@127.0.0.1'
WEB = 'web page (WebSocket drive message)'
BASELINE = 'OperatorTwist from rclpy (baseline)'


def _velocity(linear: float) -> Callable[[Any], bool]:
    return lambda msg: abs(msg.linear.x - linear) < 1e-6 and msg.angular.z == 0.0


def _zero(msg: Any) -> bool:
    return msg.linear.x == 0.0 and msg.angular.z == 0.0


def measure_drive(ros: Any, namespace: str, page: Any, samples: int,
                  teleop: Callable[[], Any]) -> Dict[str, Any]:
    """
    Return drive → first cmd_vel with that velocity and zero → first zero (s), both ways.

    ``teleop`` selects TELEOPERATION (the mux leaves it ``teleoperation_idle_timer``, 0.5 s,
    after the last command that moved: while this process discovers the topics, for one).
    """
    base = Base(ros, namespace)
    stream = ros.publisher(OperatorTwist, f'{namespace}/{OPERATOR_CMD_VEL}', qos.COMMAND_OUT)

    def baseline(linear: float) -> None:
        msg = OperatorTwist(by=PAGE_OPERATOR)
        msg.header.stamp = ros.probe.get_clock().now().to_msg()
        msg.twist.linear.x = linear
        stream.publish(msg)

    send = {WEB: lambda linear: page.drive(linear, 0.0), BASELINE: baseline}
    if not wait_until(lambda: stream.get_subscription_count() > 0, 30.0):
        raise TimeoutError("the mux does not take the operators' stream")
    for name in send:  # until each way is heard on cmd_vel here (discovery)
        for attempt in range(60):
            teleop()
            base.expect(_velocity(0.05))
            send[name](0.05)
            try:
                base.wait(0.5)
                break
            except TimeoutError:
                if attempt == 59:
                    raise
        send[name](0.0)
    found: Dict[str, Any] = {name: {'drive': [], 'zero': []} for name in send}
    for sample in range(samples):
        linear = 0.1 + 0.001 * (sample % 300)  # a velocity of its own, within the limit
        for name in random.sample(list(send), len(send)):
            base.expect(_velocity(linear))
            called = time.monotonic()
            send[name](linear)
            found[name]['drive'].append(base.wait() - called)
            time.sleep(random.uniform(0.02, 0.06))  # as long as a held joystick's next message
            base.expect(_zero)
            called = time.monotonic()
            send[name](0.0)
            found[name]['zero'].append(base.wait() - called)
            time.sleep(random.uniform(0.0, 0.03))
    return found


def _mouse(driver: Any, kind: str, x: float, y: float) -> None:
    driver.execute_cdp_cmd('Input.dispatchMouseEvent', {
        'type': kind, 'x': x, 'y': y, 'button': 'left', 'buttons': 1 if kind != 'mouseReleased'
        else 0, 'clickCount': 1})


def joystick_centre(driver: Any) -> List[float]:
    return list(driver.execute_script(
        "const r = document.getElementById('joystick').getBoundingClientRect();"
        'return [r.left + r.width / 2, r.top + r.height / 2];'))


def measure_joystick(ros: Any, namespace: str, driver: Any, samples: int) -> Dict[str, Any]:
    """Return a press on the page's joystick → first moving cmd_vel, release → first zero (s)."""
    base = Base(ros, namespace)
    x, y = joystick_centre(driver)
    found: Dict[str, List[float]] = {'press': [], 'release': [], 'devtools call': []}
    for sample in range(samples):
        ahead = 1 if sample % 2 == 0 else -1  # forward, then back: the robot stays where it is
        base.expect(lambda msg: msg.linear.x * ahead > 0.05)
        called = time.monotonic()
        _mouse(driver, 'mousePressed', x, y - 40 * ahead)
        found['press'].append(base.wait() - called)
        time.sleep(random.uniform(0.1, 0.2))
        base.expect(_zero)
        called = time.monotonic()
        _mouse(driver, 'mouseReleased', x, y - 40 * ahead)
        found['devtools call'].append(time.monotonic() - called)  # the event is in the page
        found['release'].append(base.wait() - called)
        time.sleep(random.uniform(0.1, 0.2))
    return found


def hold_joystick(driver: Any) -> Callable[[], None]:
    """Hold the page's joystick to the right (turning in place); return what lets it go."""
    x, y = joystick_centre(driver)
    _mouse(driver, 'mousePressed', x + 40, y)
    return lambda: _mouse(driver, 'mouseReleased', x + 40, y)
