"""
xr_replay: publish a recorded XR controller session as the controllers would.

Plays a session file (:mod:`robot_sm.xr.session`; by default the shipped
``config/xr_session.npz``) on ``xr/<hand>/pose`` (geometry_msgs/PoseStamped, only while the
controller was tracked) and ``xr/<hand>/joy`` (sensor_msgs/Joy), each stamped on the node's clock
with the time the session gives it (the replay's start plus the sample's time in the session), as
a controller stamps its samples: whoever listens (the teleop_retargeting node) cannot tell it from
live controllers, and can tell a sample that comes late from one that was never sent.
Sample times follow the node's clock: real time, or with ``use_sim_time`` the ``/clock`` of a
simulation, which can run faster than real time (robot_sim's ``time_scale``).

    ros2 run robot_sm xr_replay
    python -m robot_sm.nodes.xr_replay --ros-args -p session_file:=my_session.npz -p loop:=true

Every sample is published once, in order, when the clock reaches its time. It starts once every
``xr`` topic has a subscriber (``wait_for_subscribers``) and ends its process at the end of the
session unless ``loop`` is set.
"""

import sys
from typing import Any, List, Optional

from geometry_msgs.msg import PoseStamped
import numpy as np
from rclpy.duration import Duration
from rclpy.node import Node
from rclpy.task import Future
from robot_sm import qos
from robot_sm.nodes.node_parameters import declare_parameters
from robot_sm.nodes.runner import run_node, seconds_clock
from robot_sm.parameters import ConfigurationError, Param
from robot_sm.resources import share_directory
from robot_sm.xr.session import HANDS, SessionFileError, XrSession
from sensor_msgs.msg import Joy

BUNDLED_SESSION = 'xr_session.npz'

PARAMETERS = [
    Param('session_file', '', f'session to play (empty: the bundled config/{BUNDLED_SESSION})'),
    Param('loop', False, 'start again at the end instead of ending'),
    Param('wait_for_subscribers', True, 'start once every xr topic has a subscriber'),
]


class XrReplay(Node):
    """Publish a recorded session on the xr topics, in the node clock's time."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__('xr_replay', **kwargs)
        config = declare_parameters(self, PARAMETERS)
        path = config['session_file'] or str(share_directory() / 'config' / BUNDLED_SESSION)
        try:
            self.session = XrSession.load(path)
        except SessionFileError as error:
            raise ConfigurationError(f"parameter 'session_file': {error}") from None
        self._loop = config['loop']
        self._wait = config['wait_for_subscribers']
        self._now = seconds_clock(self)
        self._poses = {hand: self.create_publisher(PoseStamped, f'xr/{hand}/pose',
                                                   qos.CONTROLLER_SAMPLES)
                       for hand in HANDS}
        self._joys = {hand: self.create_publisher(Joy, f'xr/{hand}/joy', qos.CONTROLLER_SAMPLES)
                      for hand in HANDS}
        #: Done when the session has been played to its end (never with ``loop``).
        self.finished = Future()
        self._start: Optional[float] = None
        self._start_stamp = self.get_clock().now()
        self._next = 0
        # Once per sample period: a sample goes out at most a period late, with its own stamp.
        self.create_timer(float(np.median(np.diff(self.session.time))), self._tick)
        self.get_logger().info(
            f'replaying {path}: {len(self.session)} samples, {self.session.duration:.1f} s'
            f"{', looping' if self._loop else ''}")

    def _ready(self) -> bool:
        publishers = [*self._poses.values(), *self._joys.values()]
        return not self._wait or all(p.get_subscription_count() > 0 for p in publishers)

    def _tick(self) -> None:
        if self.finished.done():
            return
        now = self._now()
        if self._start is None:
            if not self._ready():
                return
            self._start, self._start_stamp = now, self.get_clock().now()
            self.get_logger().info('replay started')
        elapsed = now - self._start
        times = self.session.time
        due = int(np.searchsorted(times, elapsed, side='right'))
        while self._next < due:   # every sample once, in order, even after a late tick
            self._publish(self._next)
            self._next += 1
        if self._next >= len(times):
            if self._loop:
                self._start, self._start_stamp, self._next = now, self.get_clock().now(), 0
            else:
                self.get_logger().info('replay finished')
                self.finished.set_result(True)

    def _publish(self, index: int) -> None:
        stamp = (self._start_stamp + Duration(seconds=float(self.session.time[index]))).to_msg()
        for hand in HANDS:
            track = self.session.hands[hand]
            if track.tracked[index]:
                pose = PoseStamped()
                pose.header.stamp = stamp
                pose.header.frame_id = self.session.frame_id
                p, o = pose.pose.position, pose.pose.orientation
                p.x, p.y, p.z = track.position[index].tolist()
                o.x, o.y, o.z, o.w = track.orientation[index].tolist()
                self._poses[hand].publish(pose)
            joy = Joy(axes=track.axes[index].tolist(),
                      buttons=[int(round(b)) for b in track.buttons[index].tolist()])
            joy.header.stamp = stamp
            joy.header.frame_id = self.session.frame_id
            self._joys[hand].publish(joy)


def main(args: Optional[List[str]] = None) -> None:
    """Run the xr_replay node until the session ends (or forever with ``loop``)."""
    sys.exit(run_node(XrReplay, args, until=lambda node: node.finished))


if __name__ == '__main__':
    main()
