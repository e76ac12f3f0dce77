"""
The operating cycle as a diagram the page draws: boxes for the roles, arrows for transitions.

:func:`layout` takes the document the state interface publishes on ``robot_sm/cycle``
(:func:`robot_sm.statemachine.cycle.describe`: roles, their plugin states, outcomes and
interrupts) and places whatever it holds, so a plugin package's states and a cycle of its own are
drawn as they are:

- each role is a box (its name, then its states), in the row of its distance from the start
  (outcomes first, then interrupts); the roles of one activity stand in a column of their own,
  framed as a group, the roles outside activities in the columns at the left;
- each outcome is an arrow labelled with the outcomes that lead along it; each interrupt a
  dashed arrow, one from the group's frame when every role of the activity takes it alike;
- arrows leave and enter at the boxes' sides facing each other, spread along a side when several
  share it, and an arrow back up a column bends around its right.

Coordinates are SVG user units (CSS pixels at zoom 1), paths SVG path data. Nothing here knows
the shipped cycle's roles. Pure: no rclpy.
"""

from typing import Any, Dict, List, Mapping, Optional, Tuple

from robot_sm.frontends.web.cycle_place import (
    activities,
    Arrow,
    Box,
    Frame,
    GROUP,
    LINE_HEIGHT,
    MARGIN,
    PADDING,
    place,
    route,
    TITLE_HEIGHT,
)

#: Characters of a box's line about an arrow to a hub (10 px text in a box's width).
EXIT_CHARACTERS = 27
#: A role that arrows from this many other groups' roles lead to is a hub.
HUB_SOURCES = 3


class CycleDocumentError(ValueError):
    """The cycle document cannot be drawn; the message says why."""


def _text_map(value: Any, what: str) -> Dict[str, str]:
    if not isinstance(value, Mapping):
        raise CycleDocumentError(f'{what} must be an object')
    return {str(key): str(target) for key, target in value.items()}


def read_roles(document: Any) -> Tuple[str, List[Box]]:
    """Return the start role and the roles of a cycle document; raise if it is not one."""
    if not isinstance(document, Mapping) or not isinstance(document.get('roles'), list):
        raise CycleDocumentError('the cycle document has no list of roles')
    boxes: List[Box] = []
    for entry in document['roles']:
        if not isinstance(entry, Mapping) or not isinstance(entry.get('role'), str):
            raise CycleDocumentError('every role of the cycle needs a name')
        plugins = entry.get('plugins') or []
        if not isinstance(plugins, list):
            raise CycleDocumentError(f"role {entry['role']}: plugins must be a list")
        states = [{'plugin': str(p.get('plugin', '')), 'state': str(p.get('state', ''))}
                  for p in plugins if isinstance(p, Mapping)]
        boxes.append(Box(entry['role'], str(entry.get('activity') or ''),
                         str(entry.get('does') or ''), states,
                         _text_map(entry.get('outcomes') or {}, f"role {entry['role']}: outcomes"),
                         _text_map(entry.get('interrupts') or {},
                                   f"role {entry['role']}: interrupts")))
    if not boxes:
        raise CycleDocumentError('the cycle has no roles')
    start = str(document.get('start') or boxes[0].role)
    return start, boxes


def rank_roles(start: str, boxes: List[Box]) -> None:
    """Set each role's rank: its distance from ``start``, by outcomes first, then interrupts."""
    by_role = {box.role: box for box in boxes}
    ranks: Dict[str, int] = {start: 0} if start in by_role else {boxes[0].role: 0}
    for edges in ('outcomes', 'interrupts'):
        frontier = sorted(ranks, key=lambda role: ranks[role])
        while frontier:
            role = frontier.pop(0)
            for target in getattr(by_role[role], edges).values():
                if target in by_role and target not in ranks:
                    ranks[target] = ranks[role] + 1
                    frontier.append(target)
                    if edges == 'interrupts':  # what follows it by outcomes comes next
                        frontier += _follow_outcomes(target, by_role, ranks)
    last = max(ranks.values())
    for box in boxes:
        box.rank = ranks.setdefault(box.role, last + 1)


def _follow_outcomes(role: str, by_role: Dict[str, Box], ranks: Dict[str, int]) -> List[str]:
    reached: List[str] = []
    frontier = [role]
    while frontier:
        source = frontier.pop(0)
        for target in by_role[source].outcomes.values():
            if target in by_role and target not in ranks:
                ranks[target] = ranks[source] + 1
                frontier.append(target)
                reached.append(target)
    return reached


def arrows(boxes: List[Box]) -> List[Arrow]:
    """
    Return the outcomes (merged by source and target) and the interrupts as arrows.

    An interrupt every role of an activity takes alike comes once, from the activity's group.
    """
    known = {box.role for box in boxes}
    found: Dict[Tuple[str, str, str], Arrow] = {}
    for box in boxes:
        for outcome, target in box.outcomes.items():
            if target in known:
                found.setdefault((box.role, target, 'outcome'),
                                 Arrow(box.role, target, 'outcome')).labels.append(outcome)
    for activity in activities(boxes):
        members = [box for box in boxes if box.activity == activity]
        shared = set(members[0].interrupts.items()) if activity and len(members) > 1 else set()
        for box in members[1:]:
            shared &= set(box.interrupts.items())
        for interrupt, target in members[0].interrupts.items() if shared else ():
            if (interrupt, target) in shared and target in known:
                found.setdefault((GROUP + activity, target, 'interrupt'), Arrow(
                    GROUP + activity, target, 'interrupt')).labels.append(interrupt)
        for box in members:
            for interrupt, target in box.interrupts.items():
                if (interrupt, target) not in shared and target in known:
                    found.setdefault((box.role, target, 'interrupt'), Arrow(
                        box.role, target, 'interrupt')).labels.append(interrupt)
    return list(found.values())


def hubs(boxes: List[Box], placed: List[Arrow]) -> Dict[str, bool]:
    """Return the roles that arrows from :data:`HUB_SOURCES` other groups or more lead to."""
    activity = {box.role: box.activity for box in boxes}
    sources: Dict[str, set] = {}
    for arrow in placed:
        home = (arrow.source[len(GROUP):] if arrow.source.startswith(GROUP)
                else activity[arrow.source])
        if home != activity[arrow.target]:
            sources.setdefault(arrow.target, set()).add(arrow.source)
    return {role: len(found) >= HUB_SOURCES for role, found in sources.items()}


def wrapped(text: str, width: int) -> List[str]:
    """Return ``text`` in lines of at most ``width`` characters, broken after spaces."""
    lines: List[str] = []
    line = ''
    for word in text.split(' '):
        if line and len(line) + 1 + len(word) > width:
            lines.append(line)
            line = word
        else:
            line = f'{line} {word}' if line else word
    return lines + [line] if line else lines


def exit_lines(arrow: Arrow) -> List[Dict[str, Any]]:
    """
    Return the lines that stand for an arrow to a hub, or back to where it starts.

    ``aborted, stopped → idle``; an interrupt ``⚡ EMERGENCY_STOP → emergency stop``; back to
    the same role ``⚡ SIMPLE_GOAL ↻ again``.
    """
    mark = '⚡ ' if arrow.kind == 'interrupt' else ''
    where = ('↻ again' if arrow.target == arrow.source
             else f"→ {arrow.target.replace('_', ' ')}")
    text = f"{mark}{', '.join(arrow.labels)} {where}"
    return [{'text': line, 'kind': arrow.kind, 'to': arrow.target, 'class': 'exit'}
            for line in wrapped(text, EXIT_CHARACTERS)]


def fill(boxes: List[Box], placed: List[Arrow]) -> Tuple[List[Arrow], Dict[str, List[Any]]]:
    """
    Write each box's lines (its states, then its arrows to hubs); return the arrows left.

    An arrow from a role of an activity (or its group) to a hub outside it becomes lines of its
    box (or the group's frame), so that a dozen arrows do not all cross the diagram to Idle.
    """
    hub = hubs(boxes, placed)
    activity = {box.role: box.activity for box in boxes}
    group_lines: Dict[str, List[Any]] = {}
    left: List[Arrow] = []
    exits: Dict[str, List[Dict[str, Any]]] = {}
    for arrow in placed:
        grouped = arrow.source.startswith(GROUP)
        home = arrow.source[len(GROUP):] if grouped else activity[arrow.source]
        looped = arrow.source == arrow.target
        if looped or (home and home != activity[arrow.target] and hub.get(arrow.target)):
            target = group_lines.setdefault(home, []) if grouped else exits.setdefault(
                arrow.source, [])
            target.extend(exit_lines(arrow))
        else:
            left.append(arrow)
    for box in boxes:
        box.lines = [{'text': state['state'] or state['plugin'], 'plugin': state['plugin'],
                      'class': 'state'} for state in box.states] or [
            {'text': '', 'plugin': '', 'class': 'state'}]
        box.lines += exits.get(box.role, [])
        box.height = 2 * PADDING + TITLE_HEIGHT + LINE_HEIGHT * len(box.lines)
    return left, group_lines


def layout(document: Any) -> Dict[str, Any]:
    """
    Return the diagram of a cycle document: its size, groups, boxes and arrows.

    :raises CycleDocumentError: if the document is not a cycle (no roles, a role without a
        name, outcomes that are not an object).
    """
    start, boxes = read_roles(document)
    rank_roles(start, boxes)
    left, group_lines = fill(boxes, arrows(boxes))
    groups = place(boxes, group_lines)
    frames: Dict[str, Frame] = {box.role: (box.x, box.y, box.width, box.height) for box in boxes}
    columns: Dict[str, Optional[int]] = {box.role: box.column for box in boxes}
    for group in groups:
        name = GROUP + group['activity']
        frames[name] = (group['x'], group['y'], group['width'], group['height'])
        columns[name] = None
    edges = route(left, frames, columns)
    width = max(frame[0] + frame[2] for frame in frames.values()) + MARGIN + 60
    height = max(frame[1] + frame[3] for frame in frames.values()) + MARGIN
    return {
        'start': start, 'width': round(width, 1), 'height': round(height, 1),
        'groups': groups,
        'nodes': [{'role': box.role, 'label': box.role.replace('_', ' '),
                   'activity': box.activity, 'does': box.does, 'lines': box.lines,
                   'rank': box.rank, 'x': box.x, 'y': box.y, 'width': box.width,
                   'height': box.height} for box in boxes],
        'edges': edges,
    }
