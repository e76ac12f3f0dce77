"""
A probe process for tests and benchmarks that run hosts apart: it echoes topics or streams one.

``python -m robot_sm.testing.topic_probe echo [--output FILE] TOPIC:TYPE[:QOS] ...`` writes every
message of the topics as a JSON line ``{"t": <monotonic arrival time>, "topic": ..., "msg":
{...}}`` (to stdout, or to ``FILE``, which :class:`EchoLog` reads back as it grows); the monotonic
clock is the machine's, so times written in another network namespace compare with the reader's.
``python -m robot_sm.testing.topic_probe stream TOPIC TYPE RATE JSON`` publishes the message
``JSON`` (fields of ``TYPE``) at ``RATE`` Hz until SIGINT, as a teleoperation device would. Both
write ``{"ready": true}`` once their endpoints exist. ``TYPE`` is written ``package/msg/Name``;
``QOS`` is a profile of :mod:`robot_sm.qos` (``state``, ``sensor``, ``events``, ``command_in``,
``command_out``, ``heartbeat``; default ``events``).
"""

import argparse
import functools
import json
import pathlib
import sys
import threading
import time
from typing import Any, Callable, Dict, List, Optional, TextIO, Tuple

from rclpy.node import Node
from robot_sm import qos
from robot_sm.nodes.message_fields import fill, message_type, to_plain
from robot_sm.nodes.runner import run_node

PROFILES = {'state': qos.STATE, 'sensor': qos.SENSOR, 'events': qos.EVENTS,
            'command_in': qos.COMMAND_IN, 'command_out': qos.COMMAND_OUT,
            'heartbeat': qos.HEARTBEAT}


def _emit(record: Dict[str, Any], out: TextIO = sys.stdout) -> None:
    out.write(json.dumps(record) + '\n')
    out.flush()


def _echo(topic: str, out: TextIO, msg: Any) -> None:
    _emit({'t': time.monotonic(), 'topic': topic, 'msg': to_plain(msg)}, out)


class TopicEcho(Node):
    """Write every message of the given topics with its arrival time to ``out``."""

    def __init__(self, specs: List[str], out: TextIO = sys.stdout, **kwargs: Any) -> None:
        super().__init__('topic_probe_echo', start_parameter_services=False, **kwargs)
        for spec in specs:
            topic, type_name, profile = (spec.split(':') + ['events'])[:3]
            self.create_subscription(message_type(type_name), topic,
                                     functools.partial(_echo, topic, out), PROFILES[profile])
        _emit({'ready': True}, out)


class TopicStream(Node):
    """Publish one message at a fixed rate."""

    def __init__(self, topic: str, type_name: str, rate: float, fields: Dict[str, Any],
                 **kwargs: Any) -> None:
        super().__init__('topic_probe_stream', start_parameter_services=False, **kwargs)
        message = fill(message_type(type_name)(), fields)
        publisher = self.create_publisher(message_type(type_name), topic, qos.COMMAND_OUT)
        self.create_timer(1.0 / rate, lambda: publisher.publish(message))
        _emit({'ready': True})


#: One received message: its arrival time (monotonic) and its fields.
Received = Tuple[float, Dict[str, Any]]


class EchoLog:
    """The messages an echo probe writes to a file, read back as the file grows."""

    def __init__(self, path: 'str | pathlib.Path') -> None:
        self.path = pathlib.Path(path)
        self._lock = threading.Lock()
        self._offset = 0
        self._partial = ''
        self._ready = False
        self._topics: Dict[str, List[Received]] = {}

    def _read(self) -> None:
        try:
            with open(self.path) as stream:
                stream.seek(self._offset)
                text = stream.read()
                self._offset = stream.tell()
        except FileNotFoundError:
            return
        lines = (self._partial + text).split('\n')
        self._partial = lines.pop()
        for line in lines:
            record = json.loads(line)
            if record.get('ready'):
                self._ready = True
            else:
                self._topics.setdefault(record['topic'], []).append((record['t'], record['msg']))

    @property
    def ready(self) -> bool:
        """Return True once the probe has made its subscriptions."""
        with self._lock:
            self._read()
            return self._ready

    def messages(self, topic: str, after: float = 0.0) -> List[Received]:
        """Return the messages of ``topic`` that arrived at or after ``after``, oldest first."""
        with self._lock:
            self._read()
            return [item for item in self._topics.get(topic, []) if item[0] >= after]

    def last(self, topic: str) -> Optional[Received]:
        """Return the newest message of ``topic``, or None."""
        received = self.messages(topic)
        return received[-1] if received else None

    def wait_for(self, topic: str, predicate: Callable[[Dict[str, Any]], bool] = lambda _: True,
                 timeout: float = 5.0, after: float = 0.0) -> Received:
        """
        Return the first message of ``topic`` since ``after`` that satisfies ``predicate``.

        :raises TimeoutError: if none arrives within ``timeout`` seconds.
        """
        deadline = time.monotonic() + timeout
        while True:
            for item in self.messages(topic, after):
                if predicate(item[1]):
                    return item
            if time.monotonic() >= deadline:
                raise TimeoutError(f'no matching message on {topic} within {timeout:g} s')
            time.sleep(0.01)


def main(argv: Optional[List[str]] = None) -> int:
    """Run the probe; return its exit code."""
    parser = argparse.ArgumentParser(prog='python -m robot_sm.testing.topic_probe',
                                     description=__doc__.split('\n\n')[0].strip())
    verbs = parser.add_subparsers(dest='verb', required=True)
    echo = verbs.add_parser('echo', help='print messages as JSON lines with arrival times')
    echo.add_argument('--output', '-o', type=argparse.FileType('w'), default=sys.stdout,
                      metavar='FILE', help='write the JSON lines to FILE')
    echo.add_argument('specs', nargs='+', metavar='TOPIC:TYPE[:QOS]')
    stream = verbs.add_parser('stream', help='publish one message at a fixed rate')
    stream.add_argument('topic')
    stream.add_argument('type')
    stream.add_argument('rate', type=float)
    stream.add_argument('fields', type=json.loads)
    args, ros_args = parser.parse_known_args(argv)
    if args.verb == 'echo':
        return run_node(lambda: TopicEcho(args.specs, args.output), ros_args)
    return run_node(lambda: TopicStream(args.topic, args.type, args.rate, args.fields), ros_args)


if __name__ == '__main__':
    sys.exit(main())
