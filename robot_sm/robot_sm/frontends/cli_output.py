"""What ``robot-sm`` prints: the status screen, waypoint and fleet tables, the fleet's answers."""

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
    last = f'    (last: {status.outcome})' if status.outcome else ''
    visited = sum(w.visited for w in status.waypoints)
    unreachable = sum(w.unreachable for w in status.waypoints)
    return '\n'.join([
        f'state      {status.state}{last}',
        f'mode       {status.mode}    e-stop {estop}    input {status.selected_input}',
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


def format_acknowledgements(acknowledgements: List[Any], engaged: bool) -> str:
    """Return each robot's answer to a fleet-wide e-stop, one robot a line."""
    width = max([len(a.namespace) for a in acknowledgements] or [0])
    done = 'engaged' if engaged else 'released'
    return '\n'.join(
        f'{a.namespace:<{width}}  {done} (confirmed in {a.seconds * 1000:.0f} ms)'
        if a.confirmed else f'{a.namespace:<{width}}  {a.verdict}: {a.message}'
        for a in acknowledgements)
