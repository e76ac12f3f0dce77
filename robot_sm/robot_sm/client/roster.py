"""
The robots a fleet is expected to have, by name: the roster (no rclpy).

A fleet-wide stop must name every robot that did not stop, also one that was never found: a
robot frozen before anything discovered it is not on the ROS graph at all. The robots expected
come from three places, merged:

- a fleet file (YAML, ``robots: [robot1, /site/robot2]``; names without a leading ``/`` are taken
  under the namespace the command works in). ``config/fleet.yaml`` documents the format, and
  ``robot-sm up --sim --robots N`` writes one for its robots (:func:`write_fleet_file`);
- names given to ``--expect`` (``--expect robot1,robot2``; a number expects a count of robots,
  no names);
- every robot an earlier fleet command saw in the same ROS environment (:class:`SeenRobots`: a
  file in the folder of the robot-sm daemons, kept across the daemon's restarts; ``robot-sm
  fleet forget`` empties it).
"""

import json
import os
import pathlib
from typing import Iterable, List, Optional, Sequence, Tuple
import zlib

import yaml

#: What decides which robots a command can see: the ROS domain and discovery, the middleware,
#: the network namespace (the robots seen are kept per such environment).
_ROS_NAMES = ('ROS_DOMAIN_ID', 'ROS_AUTOMATIC_DISCOVERY_RANGE', 'ROS_STATIC_PEERS',
              'ROS_DISCOVERY_SERVER', 'ROS_SUPER_CLIENT', 'ROS_LOCALHOST_ONLY')
_MIDDLEWARE_PREFIXES = ('RMW_', 'FASTDDS_', 'FASTRTPS_', 'CYCLONEDDS_', 'ZENOH_')


class RosterError(ValueError):
    """A fleet file or an ``--expect`` value that cannot be used; the message says why."""


def full_name(name: str, within: str = '/') -> str:
    """Return the robot namespace ``name`` names: as is if absolute, else under ``within``."""
    name = name.strip()
    if name.startswith('/'):
        return '/' + name.strip('/')
    return within.rstrip('/') + '/' + name.strip('/')


def parse_expect(text: Optional[str], within: str = '/') -> Tuple[Optional[int], List[str]]:
    """
    Return the count and the names an ``--expect`` value asks for.

    ``3`` expects three robots, ``robot1,robot2`` (or ``/robot1,/robot2``) those two by name.

    :raises RosterError: for a count below 1 or an empty name.
    """
    if text is None:
        return None, []
    text = text.strip()
    if text.isdigit():
        if int(text) < 1:
            raise RosterError(f'--expect {text}: a count must be at least 1')
        return int(text), []
    names = [part.strip() for part in text.split(',')]
    if not all(names) or any(part.strip('/') == '' for part in names):
        raise RosterError(f'--expect {text!r}: give a count or robot names separated by commas')
    return None, sorted({full_name(name, within) for name in names})


def load_fleet_file(path: pathlib.Path, within: str = '/') -> List[str]:
    """
    Return the robot namespaces a fleet file names.

    :raises RosterError: if it cannot be read or is not ``robots:`` with a list of names.
    """
    try:
        document = yaml.safe_load(pathlib.Path(path).read_text())
    except OSError as error:
        raise RosterError(f'cannot read the fleet file {path}: {error.strerror}') from None
    except yaml.YAMLError as error:
        raise RosterError(f'the fleet file {path} is not YAML: {error}') from None
    robots = document.get('robots') if isinstance(document, dict) else None
    if not isinstance(robots, list) or not all(
            isinstance(name, str) and name.strip('/ ') for name in robots):
        raise RosterError(f'the fleet file {path} must hold robots: a list of robot names '
                          '(see config/fleet.yaml)')
    return sorted({full_name(name, within) for name in robots})


def write_fleet_file(path: pathlib.Path, namespaces: Sequence[str]) -> None:
    """Write a fleet file naming ``namespaces`` (what ``robot-sm up --robots N`` runs)."""
    lines = ['# The robots of this fleet, written by robot-sm up --robots: a fleet-wide stop',
             '# names each one that does not confirm (robot-sm fleet estop on --fleet FILE).',
             'robots:'] + [f'  - {name}' for name in namespaces]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text('\n'.join(lines) + '\n')


def under(namespaces: Iterable[str], within: str) -> List[str]:
    """Return the namespaces at or under ``within``."""
    prefix = within.rstrip('/')
    return sorted({name for name in namespaces
                   if not prefix or name == prefix or name.startswith(prefix + '/')})


def ros_environment_key() -> str:
    """Return a short hash of what decides which robots this process can see."""
    found = {name: value for name, value in os.environ.items()
             if name in _ROS_NAMES or name.startswith(_MIDDLEWARE_PREFIXES)}
    try:
        info = os.stat('/proc/self/ns/net')
        found['network namespace'] = f'{info.st_dev}:{info.st_ino}'
    except OSError:
        pass
    return f'{zlib.crc32(json.dumps(found, sort_keys=True).encode()):08x}'


class SeenRobots:
    """The robots earlier fleet commands saw in this ROS environment, kept in a file."""

    def __init__(self, folder: pathlib.Path) -> None:
        """Keep them in ``folder`` (the daemons' folder), one file per ROS environment."""
        self.path = pathlib.Path(folder) / f'fleet-seen-{ros_environment_key()}.json'

    def load(self) -> List[str]:
        """Return every robot seen; none if the file is missing or unreadable."""
        try:
            names = json.loads(self.path.read_text())
        except (OSError, ValueError):
            return []
        return sorted(name for name in names if isinstance(name, str)) \
            if isinstance(names, list) else []

    def add(self, namespaces: Iterable[str]) -> None:
        """Remember ``namespaces`` as seen (a no-op when none is new)."""
        known = set(self.load())
        if set(namespaces) <= known:
            return
        self._write(known | set(namespaces))

    def forget(self, within: str = '/', names: Sequence[str] = ()) -> List[str]:
        """Forget the robots ``names`` (all under ``within`` if none); return those forgotten."""
        known = set(self.load())
        gone = set(names) & known if names else set(under(known, within))
        if gone:
            self._write(known - gone)
        return sorted(gone)

    def _write(self, names: Iterable[str]) -> None:
        temporary = self.path.with_suffix(f'.{os.getpid()}.tmp')
        temporary.write_text(json.dumps(sorted(names)))
        os.replace(temporary, self.path)
