"""
The running or paused activity on disk: the state interface comes back paused after a restart.

:class:`PausedActivityFile` keeps what the state machine hands to ``keep_resumable``
(:mod:`robot_sm.statemachine.pausing`) in ``paused_activity_file``: written by a background
thread (a tick never waits for the disk), atomically, read at start. An activity that was
running when the state interface or the suite died comes back paused, never running by itself;
a paused one comes back paused; continue resumes either. A file that cannot be read is moved
aside and the robot comes up idle, saying why.
"""

import os
import time
from typing import Any, Callable, Dict, List, Optional

from robot_sm.mux.emergency_stop_file import utc_time
from robot_sm.nodes.node_parameters import load_kept_file
from robot_sm.parameters import Param
from robot_sm.statemachine.resumable import (
    FORMAT,
    Resumable,
    ResumableFile,
    to_document,
    VERSION,
)
from robot_sm.storage import BackgroundWriter, default_file

#: The document of "nothing runs".
NOTHING: Dict[str, Any] = {'format': FORMAT, 'version': VERSION, 'activity': 'none'}


def parameters(namespace: str = '/') -> List[Param]:
    """Return the specification of the file's parameter."""
    return [Param('paused_activity_file', default_file(namespace, 'paused_activity.yaml'),
                  'File the running or paused activity and its place are kept in (written as '
                  'it goes on, read at start: after a restart the robot comes up with it '
                  "paused, and continue resumes it); '' disables it.")]


class PausedActivityFile:
    """The file of ``paused_activity_file`` (none if it is empty) and its writer."""

    def __init__(self, path: str, log_error: Callable[[str], None]) -> None:
        """
        Read the file: :attr:`loaded` is the activity to come up paused with, if any.

        :raises ConfigurationError: if the file's directory cannot be created, or a corrupt
            file cannot be moved aside.
        """
        self._log_error = log_error
        self.loaded: Optional[Resumable] = None
        self._writer: Optional[BackgroundWriter[Dict[str, Any]]] = None
        if not path:
            return
        file = ResumableFile(os.path.expanduser(path))
        load = load_kept_file(file, 'paused_activity_file', 'disable it')
        if load.problem:
            log_error(f'paused activity file {load.problem}')
        self.loaded = load.resumable
        self._writer = BackgroundWriter(file.save, self._on_write_error, 'paused-activity')

    def keep(self, resumable: Optional[Resumable]) -> None:
        """Hand the running or paused activity (None: none) to the writer; never waits."""
        if self._writer is not None:
            document = NOTHING if resumable is None else to_document(
                resumable, utc_time(resumable.since or time.time()))
            self._writer.write(document)

    def _on_write_error(self, message: str) -> None:
        self._log_error(f'cannot write the paused activity file: {message}; after a restart '
                        'the activity may not come back paused')

    def close(self) -> None:
        """Finish writing."""
        if self._writer is not None:
            self._writer.close(timeout=2.0)


def resumable_text(describe: str, activity_waypoints: Any) -> str:
    """
    Return what continue resumes, for operators: a round names its next waypoint.

    ``activity_waypoints`` is the newest ``robot_sm_msgs/WaypointArray`` for a paused round
    (None otherwise): 'following round, waypoint 3 of 5'.
    """
    if activity_waypoints is None or not activity_waypoints.waypoints:
        return describe
    waypoints = list(activity_waypoints.waypoints)
    order = range(len(waypoints) - 1, -1, -1) if activity_waypoints.reverse else \
        range(len(waypoints))
    index = next((i for i in order if not (waypoints[i].visited or waypoints[i].unreachable)),
                 None)
    if index is None:
        return f'{describe}, every waypoint done'
    return f'{describe}, waypoint {index + 1} of {len(waypoints)}'
