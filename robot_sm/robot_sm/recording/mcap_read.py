"""
Reading an MCAP file of ROS 2 topics back: each message decoded, with the time it was logged.

The ``mcap_ros2`` decoder builds the message classes from the schemas in the file, so nothing
of ROS needs to be installed to read one (``ros2 bag`` and Foxglove read the same file).
"""

import pathlib
from typing import Any, Dict, List, Tuple, Union

#: A decoded message and when it was logged (ns).
Logged = Tuple[int, Any]


def read_messages(path: Union[str, pathlib.Path]) -> Dict[str, List[Logged]]:
    """Return the messages of the MCAP file at ``path`` by topic, as ``(log time ns, message)``."""
    from mcap.reader import make_reader
    from mcap_ros2.decoder import DecoderFactory
    found: Dict[str, List[Logged]] = {}
    with open(path, 'rb') as stream:
        reader = make_reader(stream, decoder_factories=[DecoderFactory()])
        for _, channel, message, decoded in reader.iter_decoded_messages():
            found.setdefault(channel.topic, []).append((message.log_time, decoded))
    return found


def message_counts(path: Union[str, pathlib.Path]) -> Dict[str, int]:
    """Return the message count per topic from the file's summary (without decoding)."""
    from mcap.reader import make_reader
    with open(path, 'rb') as stream:
        summary = make_reader(stream).get_summary()
    if summary is None or summary.statistics is None:
        return {}
    return {summary.channels[channel].topic: count
            for channel, count in summary.statistics.channel_message_counts.items()}
