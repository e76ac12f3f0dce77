"""
Quality-of-service profiles chosen for the suite's topics.

- State-like topics (operation mode, state name, waypoint list, modes) are ``transient_local``
  with depth 1: a late subscriber (an rqt panel, the CLI) gets the current value at once, and the
  value is published only when it changes.
- Velocity commands are published reliably with depth 1 (only the newest command matters) and
  subscribed best-effort, which accepts both reliable and best-effort publishers.
- Sensor-like streams (controller poses, joystick) use the sensor-data profile.
"""

from rclpy.qos import (
    DurabilityPolicy,
    HistoryPolicy,
    qos_profile_sensor_data,
    QoSProfile,
    ReliabilityPolicy,
)

#: Latched state: the last value reaches late subscribers.
STATE = QoSProfile(
    history=HistoryPolicy.KEEP_LAST,
    depth=1,
    reliability=ReliabilityPolicy.RELIABLE,
    durability=DurabilityPolicy.TRANSIENT_LOCAL,
)

#: Publishing velocity commands: reliable, only the newest matters.
COMMAND_OUT = QoSProfile(
    history=HistoryPolicy.KEEP_LAST,
    depth=1,
    reliability=ReliabilityPolicy.RELIABLE,
    durability=DurabilityPolicy.VOLATILE,
)

#: Subscribing to velocity commands: best effort matches any publisher.
COMMAND_IN = QoSProfile(
    history=HistoryPolicy.KEEP_LAST,
    depth=1,
    reliability=ReliabilityPolicy.BEST_EFFORT,
    durability=DurabilityPolicy.VOLATILE,
)

#: Events that must not be lost (clicked points, goals): reliable, a short queue.
EVENTS = QoSProfile(
    history=HistoryPolicy.KEEP_LAST,
    depth=10,
    reliability=ReliabilityPolicy.RELIABLE,
    durability=DurabilityPolicy.VOLATILE,
)

#: Sensor-like streams (controller poses, joystick): best effort, newest first.
SENSOR = qos_profile_sensor_data

__all__ = ['COMMAND_IN', 'COMMAND_OUT', 'EVENTS', 'SENSOR', 'STATE']
