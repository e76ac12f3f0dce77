"""What ``robot-sm`` prints: status, waypoints, the fleet, control, the audit log."""

import time
from typing import Any, List


def format_waypoints(waypoints: List[Any]) -> str:
    """Return an aligned table of waypoints."""
    if not waypoints:
        return '  (no waypoints)'
    lines = ['  pos  id     x        y       yaw    routine        status']
    for w in waypoints:
        lines.append(f'  {w.index:>3}  {w.waypoint_id:<4} {w.x:>7.2f}  {w.y:>7.2f}  '
                     f'{w.yaw:>6.2f}    {(w.routine or "-"):<14} {w.status}')
    return '\n'.join(lines)


def format_status(status: Any) -> str:
    """Return the one-screen status display."""
    estop = 'ENGAGED' if status.emergency_stop else 'released'
    pose = (f'({status.pose[0]:.2f}, {status.pose[1]:.2f}, yaw {status.pose[2]:.2f})'
            if status.pose else f'unknown ({status.pose_error})')
    doing = f'    ({status.activity})' if status.activity else ''
    last = f'    (last: {status.outcome})' if status.outcome else ''
    visited = sum(w.visited for w in status.waypoints)
    unreachable = sum(w.unreachable for w in status.waypoints)
    return '\n'.join([
        f'state      {status.state}{doing}{last}',
        f'mode       {status.mode}    e-stop {estop}    input {status.selected_input}',
        *([format_control(status.control)] if status.control is not None else []),
        *([f'paused     resumable: {status.paused} (robot-sm continue resumes it)']
          if status.paused else []),
        *([f'held       {status.held}'] if status.held else []),
        f"driving    {'reverse' if status.driving_reverse else 'forward'}",
        f'pose       {pose}',
        f'waypoints  {len(status.waypoints)} ({visited} visited, {unreachable} unreachable), '
        f"{status.following_mode}, {'reverse' if status.following_reverse else 'forward'}",
        format_waypoints(status.waypoints),
    ])


def format_fleet(robots: List[Any]) -> str:
    """Return the fleet as a table, one robot a line."""
    width = max([len('robot')] + [len(robot.namespace) for robot in robots])
    lines = [f"{'robot':<{width}}  {'state':<24} {'mode':<10} {'e-stop':<9} "
             f"{'pose':<22} waypoints"]
    for robot in robots:
        if not robot.found:
            lines.append(f'{robot.namespace:<{width}}  NOT FOUND (expected, not on the domain)')
            continue
        estop = '?' if robot.emergency_stop is None else (
            'ENGAGED' if robot.emergency_stop else 'released')
        pose = (f'({robot.pose[0]:.2f}, {robot.pose[1]:.2f}, {robot.pose[2]:.2f})'
                if robot.pose else 'unknown')
        progress = (f'{robot.visited}/{robot.waypoints} visited'
                    + (f', {robot.unreachable} unreachable' if robot.unreachable else ''))
        last = f'    (last: {robot.outcome})' if robot.outcome else ''
        lines.append(f"{robot.namespace:<{width}}  {robot.state or '?':<24} "
                     f"{robot.mode or '?':<10} {estop:<9} {pose:<22} {progress}{last}")
    return '\n'.join(lines)


def format_acknowledgements(acknowledgements: List[Any], done: str) -> str:
    """Return each robot's answer to a fleet-wide command (``done``: engaged ...), a line each."""
    width = max([len(a.namespace) for a in acknowledgements] or [0])
    return '\n'.join(
        f'{a.namespace:<{width}}  {done} (confirmed in {a.seconds * 1000:.0f} ms)'
        if a.confirmed else f'{a.namespace:<{width}}  {a.verdict}: {a.message}'
        for a in acknowledgements)


def _clock(seconds: float) -> str:
    return time.strftime('%Y-%m-%d %H:%M:%S', time.localtime(seconds))


def format_control(info: Any) -> str:
    """Return who holds control in one line."""
    if info is None:
        return 'control    not known (no robot_sm/control yet)'
    if not info.held:
        line = 'control    free: the first operator command acquires it'
    else:
        where = ', '.join(part for part in (info.surface, info.address) if part)
        stale = (f', STALE (silent for more than {info.stale_after:g} s: anyone may take it)'
                 if info.stale else '')
        mine = ' (you)' if info.mine else ''
        line = (f'control    held by {info.holder}{mine}{f" ({where})" if where else ""} '
                f'since {_clock(info.since)}{stale}')
    if info.taken_from:
        line += f'; taken from {info.taken_from} at {_clock(info.taken_at)}'
    if info.raw_ros_open:
        line += '; raw ROS is open'
    return line


def format_audit(records: List[Any]) -> str:
    """Return the audit entries, one a line: time, who, where, what, answer."""
    if not records:
        return '(no entries)'
    lines = []
    for record in records:
        who = record.operator or f'raw ROS ({record.surface or "?"})'
        where = f' ({record.surface}, {record.address})' if record.operator else ''
        arguments = ' ' + ' '.join(f'{k}={v}' for k, v in record.arguments.items()) \
            if record.arguments else ''
        answer = record.code if not record.success else 'done'
        lines.append(f'{_clock(record.time)}  {record.kind:<7} {who}{where}: '
                     f'{record.command}{arguments} -> {answer}: {record.message}')
    return '\n'.join(lines)
