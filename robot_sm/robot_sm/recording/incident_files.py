"""
The incidents kept on disk: an MCAP file and a record for each, within a disk budget.

Each incident ``N`` is ``incident-000N.mcap`` (the topics around it, as rosbag2 writes them:
:mod:`.mcap_file`) and ``incident-000N.json`` (its :class:`IncidentRecord`) in the recorder's
folder. The MCAP file is written under a temporary name and renamed, the record atomically after
it (:func:`robot_sm.storage.write_atomically`): a record always names a complete file.
:class:`IncidentWriter` writes on a thread of its own, so that the recorder never waits for the
disk, and then keeps the folder within its budget: the oldest incidents are deleted first
(:func:`over_budget`; never the one just written), and each deletion is reported.
"""

from dataclasses import asdict, dataclass, field, fields
from datetime import datetime, timezone
import json
import os
import pathlib
import queue
import re
import threading
from typing import Any, Callable, Dict, List, Mapping, NamedTuple, Optional, Sequence, Tuple

from robot_sm.recording.incidents import Incident, KIND_LABELS
from robot_sm.recording.mcap_file import McapTopicFile
from robot_sm.recording.ring import Entry
from robot_sm.storage import write_atomically

_NAME = re.compile(r'^incident-(\d+)\.(json|mcap)$')
MIB = 1024 * 1024


class Channel(NamedTuple):
    """What rosbag2 stores of a topic: its type, schema, offered QoS and type hash."""

    type_name: str
    definition: str
    offered_qos: str = ''
    type_hash: str = ''


@dataclass(frozen=True)
class IncidentRecord:
    """What is kept of an incident: when, why, who, how the stop went, and its MCAP file."""

    id: int  # noqa: A003 - the incident's number, 'id' in the record as operators read it
    kind: str
    cause: str
    #: UTC time of the trigger (ISO 8601), and the same as ROS time in seconds.
    time: str
    stamp: float
    also: List[str] = field(default_factory=list)
    state: str = ''
    mode: str = ''
    operator: str = ''
    operator_note: str = ''
    #: m/s at the trigger; s to the first zero command and until at rest; m travelled.
    speed: Optional[float] = None
    time_to_zero: Optional[float] = None
    time_to_rest: Optional[float] = None
    distance: Optional[float] = None
    mcap: str = ''
    #: Seconds recorded before and after the trigger, messages and topics in the file, bytes.
    before: float = 0.0
    after: float = 0.0
    messages: int = 0
    topics: int = 0
    size: int = 0

    @property
    def label(self) -> str:
        """Return what kind of incident it is, in words."""
        return KIND_LABELS.get(self.kind, self.kind)

    def to_json(self) -> str:
        """Return the record as a JSON document."""
        return json.dumps(asdict(self), indent=2) + '\n'

    @classmethod
    def from_json(cls, text: str) -> 'IncidentRecord':
        """Read a record; fields it does not know are left out. Raises ValueError if invalid."""
        data = json.loads(text)
        if not isinstance(data, dict):
            raise ValueError('not a JSON object')
        known = {item.name for item in fields(cls)}
        try:
            return cls(**{key: value for key, value in data.items() if key in known})
        except TypeError as error:
            raise ValueError(str(error)) from None


def utc_text(stamp: float) -> str:
    """Return ``stamp`` (s since the epoch) as UTC ISO 8601 with milliseconds."""
    moment = datetime.fromtimestamp(stamp, timezone.utc)
    return moment.isoformat(timespec='milliseconds').replace('+00:00', 'Z')


def over_budget(sizes: Sequence[Tuple[int, int]], budget: int, keep: int) -> List[int]:
    """
    Return the incidents to delete, oldest first, so that the rest fit ``budget`` bytes.

    ``sizes`` are ``(id, bytes)``; a lower id is older. ``keep`` is never deleted.
    """
    total = sum(size for _, size in sizes)
    dropped = []
    for incident, size in sorted(sizes):
        if total <= budget:
            break
        if incident == keep:
            continue
        dropped.append(incident)
        total -= size
    return dropped


class IncidentFolder:
    """The folder of the incidents kept: records, MCAP files, ids."""

    def __init__(self, path: 'os.PathLike[str] | str') -> None:
        self.path = pathlib.Path(path)

    def _file(self, incident: int, suffix: str) -> pathlib.Path:
        return self.path / f'incident-{incident:04d}.{suffix}'

    def ids(self) -> List[int]:
        """Return the ids of every incident with a file here, oldest first."""
        try:
            names = os.listdir(self.path)
        except OSError:
            return []
        return sorted({int(match.group(1)) for match in map(_NAME.match, names) if match})

    def next_id(self) -> int:
        """Return the id the next incident gets."""
        return max(self.ids(), default=0) + 1

    def record(self, incident: int) -> Optional[IncidentRecord]:
        """Return the record of ``incident``, or None if there is none (or it cannot be read)."""
        try:
            return IncidentRecord.from_json(self._file(incident, 'json').read_text('utf-8'))
        except (OSError, ValueError, UnicodeDecodeError):
            return None

    def records(self) -> List[IncidentRecord]:
        """Return every readable record, oldest first."""
        found = (self.record(incident) for incident in self.ids())
        return [record for record in found if record is not None]

    def size(self, incident: int) -> int:
        """Return the bytes the files of ``incident`` take."""
        total = 0
        for suffix in ('mcap', 'json'):
            try:
                total += self._file(incident, suffix).stat().st_size
            except OSError:
                pass
        return total

    def write(self, incident: Incident, channels: Mapping[str, Channel],
              entries: Sequence[Entry], window_start: Optional[int] = None) -> IncidentRecord:
        """
        Write the MCAP file of ``incident`` with ``entries``, then its record; return it.

        ``window_start`` (ns) is where the buffer's window began: messages before it are the
        latched topics' current values, which do not count in the record's seconds before.
        """
        self.path.mkdir(parents=True, exist_ok=True)
        target = self._file(incident.id, 'mcap')
        temporary = target.with_name(f'.{target.name}.tmp')
        file = McapTopicFile(open(temporary, 'wb'))
        try:
            ids: Dict[str, int] = {}
            for entry in sorted(entries, key=lambda e: e.stamp):
                channel = ids.get(entry.topic)
                if channel is None:
                    info = channels[entry.topic]
                    channel = ids[entry.topic] = file.add_topic(
                        entry.topic, info.type_name, info.definition, info.offered_qos,
                        info.type_hash)
                file.write(channel, entry.data, entry.stamp)
        finally:
            file.close()
        os.replace(temporary, target)
        record = self._record(incident, target, entries, len(ids), window_start)
        write_atomically(self._file(incident.id, 'json'), record.to_json())
        return record

    def _record(self, incident: Incident, target: pathlib.Path, entries: Sequence[Entry],
                topics: int, window_start: Optional[int]) -> IncidentRecord:
        figures = incident.figures
        trigger = int(incident.time * 1e9)
        stamps = [entry.stamp for entry in entries
                  if window_start is None or entry.stamp >= window_start]
        return IncidentRecord(
            id=incident.id, kind=incident.kind, cause=incident.cause,
            time=utc_text(incident.time), stamp=incident.time, also=list(incident.also),
            state=incident.state, mode=incident.mode, operator=incident.operator,
            operator_note=incident.operator_note,
            speed=figures.speed if figures else None,
            time_to_zero=figures.time_to_zero if figures else None,
            time_to_rest=figures.time_to_rest if figures else None,
            distance=figures.distance if figures else None,
            mcap=str(target.resolve()),
            before=max(0.0, (trigger - min(stamps)) * 1e-9) if stamps else 0.0,
            after=max(0.0, (max(stamps) - trigger) * 1e-9) if stamps else 0.0,
            messages=len(entries), topics=topics, size=target.stat().st_size)

    def delete(self, incident: int) -> None:
        """Delete the files of ``incident``."""
        for suffix in ('json', 'mcap'):
            try:
                self._file(incident, suffix).unlink()
            except FileNotFoundError:
                pass

    def remove_unfinished(self) -> None:
        """Delete MCAP files left half-written (the recorder stopped while writing)."""
        for path in self.path.glob('.incident-*.mcap.tmp'):
            path.unlink(missing_ok=True)


#: Reports what the writer did: ``(level, message)``, level 'info', 'warning' or 'error'.
Report = Callable[[str, str], None]


class IncidentWriter:
    """Write incidents on a thread of its own, then keep the folder within its budget."""

    def __init__(self, folder: IncidentFolder, budget_bytes: int, report: Report) -> None:
        self.folder = folder
        self.budget = int(budget_bytes)
        self._report = report
        self._queue: 'queue.Queue[Optional[Tuple[Any, ...]]]' = queue.Queue()
        #: Records written so far, newest last.
        self.written: List[IncidentRecord] = []
        self._thread = threading.Thread(target=self._run, name='incident-writer', daemon=True)
        self._thread.start()

    def submit(self, incident: Incident, channels: Mapping[str, Channel],
               entries: Sequence[Entry], window_start: Optional[int] = None) -> None:
        """Queue ``incident`` for writing (:meth:`IncidentFolder.write`) and return at once."""
        self._queue.put((incident, dict(channels), entries, window_start))

    def close(self, timeout: float = 10.0) -> bool:
        """Write what is queued, then stop; return False if that took longer than ``timeout``."""
        self._queue.put(None)
        self._thread.join(timeout)
        return not self._thread.is_alive()

    def _run(self) -> None:
        try:   # Linux: the thread's own nice value; writing yields the cores to the suite
            os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), 19)
        except (AttributeError, OSError):
            pass
        while True:
            job = self._queue.get()
            if job is None:
                return
            incident, channels, entries, window_start = job
            try:
                record = self.folder.write(incident, channels, entries, window_start)
            except (OSError, KeyError, ValueError) as error:
                self._report('error', f'incident {incident.id} could not be written: {error}')
                continue
            self.written.append(record)
            self._report('warning', f'incident {record.id} ({record.label}: {record.cause}) '
                                    f'written: {record.mcap}')
            self.enforce(keep=record.id)

    def enforce(self, keep: int = 0) -> None:
        """Delete the oldest incidents until the folder fits the budget; report each."""
        folder = self.folder
        sizes = [(incident, folder.size(incident)) for incident in folder.ids()]
        for incident in over_budget(sizes, self.budget, keep):
            record = folder.record(incident)
            size = dict(sizes)[incident]
            folder.delete(incident)
            what = f'{record.time}, {record.label}' if record else 'no record'
            self._report('warning', f'disk budget {self.budget / MIB:g} MiB reached: deleted '
                                    f'incident {incident} ({what}; {size / MIB:.1f} MiB), '
                                    'the oldest kept')
