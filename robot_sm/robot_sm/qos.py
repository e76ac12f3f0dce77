"""
Quality-of-service profiles chosen for the suite's topics.

- State-like topics (operation mode, state name, waypoint list, modes) are ``transient_local``
  with depth 1: a late subscriber (an rqt panel, the CLI) gets the current value at once, and the
  value is published only when it changes. A subscriber that must see every change, not only
  the newest, keeps them all (``STATE_CHANGES``).
- Velocity commands are published reliably with depth 1 (only the newest command matters) and
  subscribed best-effort, which accepts both reliable and best-effort publishers.
- Sensor-like streams use the sensor-data profile. A controller's samples (XR poses and buttons)
  are kept deeper (``CONTROLLER_SAMPLES``): a teleop node that falls behind reads every sample of
  a late burst, so that a gap in their stamps means the controller stopped, not that a short
  queue overwrote them.
- Heartbeats are best effort with depth 1 and volatile: a lost beat is covered by the next, and
  a beat is never replayed to a late subscriber (it would make a dead sender look alive).
- Services (servers and clients) keep every request and answer (``SERVICES``). rmw's default
  service profile keeps only the newest 10: a burst of requests overwrote older requests in the
  server's queue before the executor took them, and answers in the client's queue before it
  read them, so they were lost without an error.
"""

from rclpy.qos import (
    DurabilityPolicy,
    HistoryPolicy,
    qos_profile_sensor_data,
    QoSProfile,
    ReliabilityPolicy,
)

KEEP_LAST, KEEP_ALL = HistoryPolicy.KEEP_LAST, HistoryPolicy.KEEP_ALL
RELIABLE, BEST_EFFORT = ReliabilityPolicy.RELIABLE, ReliabilityPolicy.BEST_EFFORT
VOLATILE, TRANSIENT_LOCAL = DurabilityPolicy.VOLATILE, DurabilityPolicy.TRANSIENT_LOCAL


def _profile(reliability: ReliabilityPolicy, durability: DurabilityPolicy,
             depth: int = 0) -> QoSProfile:
    """Return a profile keeping the last ``depth`` samples (0: keeping all)."""
    if depth == 0:
        return QoSProfile(history=KEEP_ALL, reliability=reliability, durability=durability)
    return QoSProfile(history=KEEP_LAST, depth=depth, reliability=reliability,
                      durability=durability)


#: Latched state: the last value reaches late subscribers.
STATE = _profile(RELIABLE, TRANSIENT_LOCAL, depth=1)
#: Following latched state where every change counts (a task following an activity): the
#: current value on joining, then every change, none overwritten by the next before it is read.
STATE_CHANGES = _profile(RELIABLE, TRANSIENT_LOCAL)
#: Publishing velocity commands: reliable, only the newest matters.
COMMAND_OUT = _profile(RELIABLE, VOLATILE, depth=1)
#: Subscribing to velocity commands: best effort matches any publisher.
COMMAND_IN = _profile(BEST_EFFORT, VOLATILE, depth=1)
#: Events that must not be lost (clicked points, goals): reliable, a short queue.
EVENTS = _profile(RELIABLE, VOLATILE, depth=10)
#: Sensor-like streams: best effort, newest first.
SENSOR = qos_profile_sensor_data
#: A controller's samples (XR poses, buttons): best effort, and deep enough to hold every sample
#: of half a second at 120 Hz, the longest a stream may be late before teleop stops.
CONTROLLER_SAMPLES = _profile(BEST_EFFORT, VOLATILE, depth=64)
#: Liveness heartbeats: best effort, only the newest, never replayed.
HEARTBEAT = _profile(BEST_EFFORT, VOLATILE, depth=1)
#: Records for live views (the audit log's entries): reliable, a burst of them kept.
RECORDS = _profile(RELIABLE, VOLATILE, depth=100)
#: Records that must reach a reader that starts later (the mux's STOP records for the audit
#: log, written by the state interface, which may be down): reliable, the last 100 replayed.
KEPT_RECORDS = _profile(RELIABLE, TRANSIENT_LOCAL, depth=100)
#: Every service server and client of the suite: reliable, and no request or answer is dropped
#: (a full queue makes the sender wait instead).
SERVICES = _profile(RELIABLE, VOLATILE)

__all__ = ['COMMAND_IN', 'COMMAND_OUT', 'CONTROLLER_SAMPLES', 'EVENTS', 'HEARTBEAT',
           'KEPT_RECORDS', 'RECORDS', 'SENSOR', 'SERVICES', 'STATE', 'STATE_CHANGES']
