"""
The incidents the recorder kept, as the page lists them: read from the recorder's folder.

The incident recorder writes each incident's record (``incident-000N.json``, beside its MCAP
file) to its folder on the robot (:mod:`robot_sm.client.incidents`). The console reads that
folder when it runs on the robot, as ``robot-sm incidents`` does: :class:`IncidentWatch` looks at
it every :data:`LOOK_PERIOD` seconds on the bridge's poll thread and hands the newest
:data:`MAX_SHOWN` records to ``sink`` when the folder's files changed. When the folder is not
there (the console runs on another computer, or the recorder never ran) the page is told so,
plainly. No ROS; time as an argument.
"""

import os
import pathlib
from typing import Any, Callable, Dict, FrozenSet, List, Optional

from robot_sm.client.incidents import IncidentRecord, incidents

#: Seconds between two looks at the folder.
LOOK_PERIOD = 2.0
#: The newest incidents sent to a page.
MAX_SHOWN = 20


def incident_row(record: IncidentRecord) -> Dict[str, Any]:
    """
    Return one incident as the page lists it: when, why, who, and the stop's figures.

    The figures go as they were kept: the page rounds them once, as ``robot-sm incidents`` does
    (rounded here first, a distance of 0.0049 m went as 0.005 and was shown as 0.01 m).
    """
    return {'id': record.id, 'time': record.time, 'kind': record.label, 'cause': record.cause,
            'operator': record.operator, 'speed': record.speed,
            'time_to_zero': record.time_to_zero, 'time_to_rest': record.time_to_rest,
            'distance': record.distance}


def incidents_view(folder: pathlib.Path,
                   records: Optional[List[IncidentRecord]]) -> Dict[str, Any]:
    """Return the incidents kept in ``folder`` (``records``: None when it cannot be read)."""
    if records is None:
        return {'readable': False, 'folder': str(folder), 'incidents': [], 'count': 0,
                'note': f'No incidents can be read here: {folder} is not on the computer the '
                        "console runs on (it reads the recorder's folder only on the robot; "
                        'run robot-sm incidents there, or give robot-sm web --incidents-dir).'}
    newest = list(reversed(records))[:MAX_SHOWN]
    return {'readable': True, 'folder': str(folder), 'count': len(records),
            'incidents': [incident_row(record) for record in newest],
            'note': '' if records else 'No incidents kept: the robot has not stopped '
                                       'unexpectedly since the recorder started.'}


class IncidentWatch:
    """The recorder's ``folder``, looked at now and then; its incidents handed to ``sink``."""

    def __init__(self, folder: pathlib.Path, sink: Callable[[str, Any], None],
                 period: float = LOOK_PERIOD) -> None:
        self.folder = folder
        self._sink = sink
        self._period = period
        self._looked = -float('inf')
        self._seen: Optional[FrozenSet[str]] = None
        self._readable: Optional[bool] = None

    def poll(self, now: float) -> None:
        """Look at the folder if it is time; hand the incidents on when its files changed."""
        if now - self._looked < self._period:
            return
        self._looked = now
        try:
            names: Optional[FrozenSet[str]] = frozenset(os.listdir(self.folder))
        except OSError:
            names = None
        readable = names is not None
        if readable == self._readable and names == self._seen:
            return
        self._readable, self._seen = readable, names
        records = incidents(folder=self.folder) if readable else None
        self._sink('incidents', incidents_view(self.folder, records))
