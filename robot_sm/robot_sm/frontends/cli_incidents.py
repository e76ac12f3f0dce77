"""
``robot-sm incidents`` and ``robot-sm snapshot``: the incidents the recorder kept, and a capture.

``incidents`` reads the records in the recorder's folder (:mod:`robot_sm.client.incidents`; no
ROS needed, so it runs where the recorder writes: on the robot, or on a copy of its folder with
``--dir``); ``snapshot`` asks the running recorder for an incident now.
"""

import argparse
from typing import Any, List, Optional

from robot_sm.frontends.cli_verbs import Emit, EXIT_OK, EXIT_REFUSED


def incidents_arguments(parser: argparse.ArgumentParser) -> None:
    """Add ``[list|show ID]`` and ``--dir``."""
    parser.add_argument('action', nargs='?', choices=['list', 'show'], default='list',
                        help='list the incidents (default), or show one')
    parser.add_argument('id', nargs='?', type=int, help='the incident to show')
    parser.add_argument('--dir', metavar='FOLDER',
                        help="the recorder's folder (default: $ROS_HOME/robot_sm/<namespace>/"
                             'incidents, where the recorder of --namespace writes)')


def _figure(value: Optional[float], unit: str, scale: float = 1.0, digits: int = 2) -> str:
    return '-' if value is None else f'{value * scale:.{digits}f} {unit}'


def format_incidents(records: List[Any]) -> str:
    """Return the incidents as a table, one a line, oldest first."""
    lines = [f"{'id':>4}  {'time (UTC)':<23}  {'speed':>9}  {'to zero':>8}  {'to rest':>7}  "
             f"{'travelled':>9}  cause"]
    for r in records:
        lines.append(f'{r.id:>4}  {r.time:<23}  {_figure(r.speed, "m/s"):>9}  '
                     f'{_figure(r.time_to_zero, "ms", 1000.0, 0):>8}  '
                     f'{_figure(r.time_to_rest, "s"):>7}  {_figure(r.distance, "m"):>9}  '
                     f'{r.label}: {r.cause}')
    return '\n'.join(lines)


def format_incident(r: Any) -> str:
    """Return everything the record of one incident says."""
    rest = 'not at rest by the end of the recording' if r.time_to_rest is None \
        else f'{r.time_to_rest:.2f} s'
    return '\n'.join([
        f'incident   {r.id}: {r.label}',
        f'time       {r.time} (ROS time {r.stamp:.3f})',
        f'cause      {r.cause}',
        *[f'also       {line}' for line in r.also],
        f'state      {r.state or "-"}    mode {r.mode or "-"}',
        f'operator   {r.operator} ({r.operator_note})' if r.operator
        else f'operator   unknown: {r.operator_note}',
        f'speed      {_figure(r.speed, "m/s")} at the trigger',
        f'to zero    {_figure(r.time_to_zero, "ms", 1000.0, 0)} to the first zero command '
        '(cmd_vel)',
        f'to rest    {rest} (odom)',
        f'travelled  {_figure(r.distance, "m")} from the trigger',
        f'recording  {r.mcap}',
        f'           {r.before:.1f} s before and {r.after:.1f} s after the trigger, '
        f'{r.messages} messages on {r.topics} topics, {r.size / 1048576:.1f} MiB',
    ])


def incidents(args: argparse.Namespace, emit: Emit) -> int:
    """
    List the incidents the recorder kept, or show one (time, cause, operator, figures, file).

    Read the records the incident recorder wrote (by default in the folder of the recorder of
    --namespace under ROS_HOME; --dir for another): list them with the speed at the trigger,
    the time to the first zero command, the time until at rest and the distance travelled, or
    show one whole with its MCAP file (ros2 bag play, Foxglove). Exits 1 for an incident not
    kept.
    """
    from robot_sm.client.incidents import incident, incident_folder, incidents as kept
    folder = incident_folder(args.namespace, args.dir)
    if args.action == 'show':
        if args.id is None:
            print('robot-sm incidents show: give the incident ID (robot-sm incidents lists them)')
            return EXIT_REFUSED
        record = incident(args.id, folder=folder)
        if record is None:
            emit(None, f'no incident {args.id} in {folder}')
            return EXIT_REFUSED
        emit(record, format_incident(record))
        return EXIT_OK
    records = kept(folder=folder)
    emit(records, format_incidents(records) if records else f'no incidents in {folder}')
    return EXIT_OK


def snapshot(suite: Any, args: argparse.Namespace) -> Any:
    """Capture an incident now: the recorder writes its buffer and the seconds after."""
    from robot_sm.client.incidents import snapshot as capture
    return capture(suite)
