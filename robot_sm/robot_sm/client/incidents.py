"""
The incidents the recorder kept: their records, read from its folder, and a manual snapshot.

The incident recorder (``incident_recorder``) writes each incident's MCAP file and record to its
folder on the robot, by default ``$ROS_HOME/robot_sm/<namespace>/incidents``. These functions
read the records there (they need no ROS, and no running suite), for ``robot-sm incidents`` and
the operator front-ends:

    from robot_sm.client.incidents import incidents
    for record in incidents('/robot1'):
        print(record.id, record.time, record.cause, record.time_to_rest)

:func:`snapshot` asks the running recorder to capture an incident now (``robot_sm/snapshot``).
"""

import pathlib
from typing import Any, List, Optional, Union

from robot_sm.recording.incident_files import IncidentFolder, IncidentRecord
from robot_sm.storage import default_file

__all__ = ['incident', 'incident_folder', 'incidents', 'IncidentRecord', 'snapshot', 'SNAPSHOT']

#: The recorder's manual capture service (std_srvs/Trigger), relative to the namespace.
SNAPSHOT = 'robot_sm/snapshot'

Folder = Union[str, pathlib.Path, None]


def incident_folder(namespace: str = '', folder: Folder = None) -> pathlib.Path:
    """Return ``folder``, or where the recorder of the suite in ``namespace`` keeps incidents."""
    return pathlib.Path(folder) if folder else pathlib.Path(
        default_file(namespace or '/', 'incidents'))


def incidents(namespace: str = '', folder: Folder = None) -> List[IncidentRecord]:
    """Return the records of the incidents kept, oldest first (none: an empty list)."""
    return IncidentFolder(incident_folder(namespace, folder)).records()


def incident(number: int, namespace: str = '', folder: Folder = None) -> Optional[IncidentRecord]:
    """Return the record of incident ``number``, or None if it is not kept."""
    return IncidentFolder(incident_folder(namespace, folder)).record(number)


def snapshot(suite: Any) -> Any:
    """
    Ask the recorder of ``suite`` (a SuiteClient) for an incident now; return its Result.

    The answer names the incident and its file, written once the seconds after it have passed.
    Equivalent: ``ros2 service call robot_sm/snapshot std_srvs/srv/Trigger``.

    :raises SuiteUnavailable: if no recorder answers within the client's timeout.
    """
    from robot_sm.client.connection import Result
    from std_srvs.srv import Trigger
    response = suite.call(Trigger, SNAPSHOT)
    return Result(bool(response.success), str(response.message))
