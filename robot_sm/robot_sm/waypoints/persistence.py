"""
The waypoints file: the waypoint list as YAML, written atomically, read back at start.

Every change is written to a temporary file in the same directory, flushed to disk (fsync), and
renamed over the old file, so after a crash or power loss the file holds either the old list or
the new one, never a mix. A file that cannot be read or parsed is never overwritten: it is
renamed to ``<name>.corrupt-<UTC time>`` and the store starts empty.

The format (every key but a waypoint's ``position`` may be left out of a hand-written file)::

    format: robot_sm/waypoints
    version: 1
    mode: patrol              # single | roundtrip | patrol
    reverse: false
    next_id: 4                # ids are never reused
    waypoints:
    - id: 1
      position: [1.0, 2.0, 0.0]
      orientation: [0.0, 0.0, 0.0, 1.0]   # x, y, z, w; normalised on load
      visited: false
      unreachable: false
      routine: ''
"""

from dataclasses import dataclass, replace
import math
from typing import Any, Dict, List, Optional, Set, Tuple

from robot_sm.storage import KeptFile
from robot_sm.waypoints.errors import RequestError
from robot_sm.waypoints.pose import checked_pose
from robot_sm.waypoints.waypoint_list import FollowingMode, MAX_ID, Waypoint, WaypointList
import yaml

FORMAT = 'robot_sm/waypoints'
VERSION = 1
_TOP_KEYS = {'format', 'version', 'mode', 'reverse', 'next_id', 'waypoints'}
_WAYPOINT_KEYS = {'id', 'position', 'orientation', 'visited', 'unreachable', 'routine'}
# libyaml's emitter and parser when PyYAML has them (several times faster), same results.
_DUMPER: Any = getattr(yaml, 'CSafeDumper', yaml.SafeDumper)
_LOADER: Any = getattr(yaml, 'CSafeLoader', yaml.SafeLoader)


class FileFormatError(ValueError):
    """The file's content is not a waypoint list; the message says where."""


@dataclass(frozen=True)
class LoadResult:
    """What :meth:`WaypointFile.load` found: the list, and what was wrong with the file if any."""

    waypoints: WaypointList
    problem: str = ''
    moved_to: str = ''


def to_document(waypoints: WaypointList) -> Dict[str, Any]:
    """Return the YAML document of ``waypoints``."""
    return {
        'format': FORMAT,
        'version': VERSION,
        'mode': waypoints.mode.name.lower(),
        'reverse': waypoints.reverse,
        'next_id': waypoints.next_id,
        'waypoints': [
            {
                'id': w.id,
                'position': [w.pose.x, w.pose.y, w.pose.z],
                'orientation': [w.pose.qx, w.pose.qy, w.pose.qz, w.pose.qw],
                'visited': w.visited,
                'unreachable': w.unreachable,
                'routine': w.routine,
            }
            for w in waypoints.waypoints
        ],
    }


def _numbers(value: Any, count: int, where: str) -> List[float]:
    if (not isinstance(value, list) or len(value) != count
            or not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in value)):
        raise FileFormatError(f'{where} must be a list of {count} numbers (got {value!r})')
    numbers = [float(v) for v in value]
    if not all(math.isfinite(v) for v in numbers):
        raise FileFormatError(f'{where} must hold finite numbers (got {value!r})')
    return numbers


def _typed(item: Dict[str, Any], key: str, kind: type, default: Any, where: str) -> Any:
    value = item.get(key, default)
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise FileFormatError(f'{where}.{key} must be a {kind.__name__} (got {value!r})')
    return value


def _waypoint(item: Any, where: str) -> Tuple[Optional[int], Waypoint]:
    """Return the id ``item`` gives (None: none) and the waypoint it describes (id 0 if none)."""
    if not isinstance(item, dict):
        raise FileFormatError(f'{where} must be a mapping (got {item!r})')
    unknown = set(item) - _WAYPOINT_KEYS
    if unknown:
        raise FileFormatError(f'{where} has unknown keys {sorted(map(str, unknown))}')
    if 'position' not in item:
        raise FileFormatError(f'{where} has no position')
    position = _numbers(item['position'], 3, f'{where}.position')
    orientation = _numbers(item.get('orientation', [0.0, 0.0, 0.0, 1.0]), 4,
                           f'{where}.orientation')
    try:
        pose = checked_pose(where, *position, *orientation)
    except RequestError as error:
        raise FileFormatError(str(error)) from None
    waypoint_id = None
    if 'id' in item:
        waypoint_id = _typed(item, 'id', int, 0, where)
        if not 0 <= waypoint_id <= MAX_ID:
            raise FileFormatError(f'{where}.id must be in 0..{MAX_ID} (got {waypoint_id})')
    return waypoint_id, Waypoint(waypoint_id or 0, pose,
                                 _typed(item, 'visited', bool, False, where),
                                 _typed(item, 'unreachable', bool, False, where),
                                 _typed(item, 'routine', str, '', where))


def from_document(document: Any) -> WaypointList:
    """
    Return the waypoint list a YAML document describes.

    :raises FileFormatError: naming the first thing that is wrong.
    """
    if not isinstance(document, dict):
        raise FileFormatError(f'the file must hold a mapping (got {type(document).__name__})')
    unknown = set(document) - _TOP_KEYS
    if unknown:
        raise FileFormatError(f'unknown keys {sorted(map(str, unknown))}')
    if document.get('format', FORMAT) != FORMAT:
        raise FileFormatError(f"format must be '{FORMAT}' (got {document.get('format')!r})")
    if document.get('version', VERSION) != VERSION:
        raise FileFormatError(f"version {document.get('version')!r} is not supported")
    mode_name = _typed(document, 'mode', str, 'single', 'file')
    try:
        mode = FollowingMode[mode_name.upper()]
    except KeyError:
        raise FileFormatError(f'mode must be single, roundtrip or patrol (got {mode_name!r})')
    reverse = _typed(document, 'reverse', bool, False, 'file')
    items = _typed(document, 'waypoints', list, [], 'file')

    read = [_waypoint(item, f'waypoints[{index}]') for index, item in enumerate(items)]
    waypoints = [waypoint for _, waypoint in read]
    ids: Set[int] = set()
    for index, (waypoint_id, _) in enumerate(read):
        if waypoint_id in ids:
            raise FileFormatError(f'waypoints[{index}].id {waypoint_id} is used twice')
        if waypoint_id is not None:
            ids.add(waypoint_id)
    missing_id = [index for index, (waypoint_id, _) in enumerate(read) if waypoint_id is None]

    next_id = _typed(document, 'next_id', int, max(ids, default=0) + 1, 'file')
    if next_id <= max(ids, default=0) or next_id < 1:
        raise FileFormatError(f'next_id {next_id} must be above every id in the file')
    # Hand-written waypoints without an id get fresh ones, in file order.
    for index in missing_id:
        waypoints[index] = replace(waypoints[index], id=next_id)
        next_id += 1
    return WaypointList(tuple(waypoints), mode, reverse, next_id)


class WaypointFile(KeptFile):
    """The file a waypoint list is saved to and loaded from."""

    def load(self, now: float) -> LoadResult:
        """
        Return the saved list; an empty one if there is no file yet.

        A file that cannot be read or is not a waypoint list is renamed to
        ``<name>.corrupt-<UTC time of now>`` (``now``: wall-clock seconds since the epoch) and
        the result says what was wrong and where the file went.

        :raises PersistenceError: if a bad file cannot be moved aside.
        """
        reading = self.read(now, lambda text: from_document(yaml.load(text, Loader=_LOADER)),
                            'a waypoint list', FileFormatError)
        waypoints = WaypointList() if reading.content is None else reading.content
        return LoadResult(waypoints, reading.problem, str(reading.moved_to or ''))

    def save(self, waypoints: WaypointList) -> None:
        """
        Write ``waypoints`` atomically: temporary file, fsync, rename, fsync of the directory.

        :raises OSError: if the file cannot be written; the old file is then unchanged.
        """
        text = yaml.dump(to_document(waypoints), Dumper=_DUMPER, sort_keys=False,
                         default_flow_style=None, allow_unicode=True)
        self.write(text)
