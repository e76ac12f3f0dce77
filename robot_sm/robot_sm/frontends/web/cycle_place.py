"""
Where the cycle diagram's boxes stand, and how its arrows run between them.

:func:`place` puts the roles in rows by rank. The roles of each activity stand in columns of
their own, side by side, framed as a group; the roles outside activities stand in the rows above
them (the start, Idle, the e-stop, teleoperation), each over the middle of what it leads to, or
next to what it is linked with. :func:`route` draws each arrow from the side of its source
facing its target to the side of the target facing back, spread along a side when several share
it; an arrow back up a column bends around its right (its label upright along the bend), and one
along a row that would cross a box arcs over it. Pure: no rclpy.
"""

from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Tuple

#: Sizes and gaps, in SVG user units.
NODE_WIDTH = 160
TITLE_HEIGHT = 18
LINE_HEIGHT = 16
PADDING = 6
ROW_GAP = 70
COLUMN_GAP = 46
#: Between the boxes above the activities, whose arrows run along the row, labelled.
BAND_GAP = 100
GROUP_PADDING = 10
GROUP_TITLE = 18
MARGIN = 16
#: Where along an arrow its label sits (0: its start, 1: its end).
LABEL_AT = 0.6
#: How an arrow from an activity's group (not one of its roles) names its source.
GROUP = 'group:'


@dataclass
class Box:
    """A role, placed."""

    role: str
    activity: str
    does: str
    states: List[Dict[str, str]]
    outcomes: Dict[str, str]
    interrupts: Dict[str, str]
    rank: int = 0
    column: int = 0
    x: float = 0.0
    y: float = 0.0
    width: float = NODE_WIDTH
    height: float = 0.0
    row: int = 0
    lines: List[Dict[str, Any]] = field(default_factory=list)


@dataclass
class Arrow:
    """A transition, or a group's interrupt: ``source`` is a role or ``group:ACTIVITY``."""

    source: str
    target: str
    kind: str
    labels: List[str] = field(default_factory=list)


def activities(boxes: List[Box]) -> List[str]:
    """Return the activities in the order their first role comes ('' first: no activity)."""
    found = ['']
    for box in boxes:
        if box.activity not in found:
            found.append(box.activity)
    return found


def place(boxes: List[Box], group_lines: Dict[str, List[Any]]) -> List[Dict[str, Any]]:
    """Place the roles (see the module's summary); return the activities' groups (frames)."""
    first = min((box.rank for box in boxes if box.activity), default=0)
    band = [box for box in boxes if not box.activity] if first > 0 else []
    for box in boxes:
        box.row = min(box.rank, first - 1) if box in band else box.rank
    tops: Dict[int, float] = {}
    y: float = MARGIN
    for row in range(first):
        tops[row] = y
        y += max((b.height for b in band if b.row == row), default=0.0) + ROW_GAP
    y += GROUP_TITLE + GROUP_PADDING if band else 0.0
    groups: List[Dict[str, Any]] = []
    x: float = MARGIN
    column = 0
    for activity in activities(boxes):
        members = [box for box in boxes if box.activity == activity and box not in band]
        if not members:
            continue
        x += GROUP_PADDING if activity else 0.0
        width = 0
        top: float = y
        for row in sorted({box.row for box in members}):
            in_row = [box for box in members if box.row == row]
            for offset, box in enumerate(in_row):
                box.column = column + offset
                box.x, box.y = x + offset * (NODE_WIDTH + COLUMN_GAP), top
            top += max(box.height for box in in_row) + ROW_GAP
            width = max(width, len(in_row))
        if activity:
            lines = group_lines.get(activity, [])
            frame_top = min(b.y for b in members) - GROUP_PADDING - GROUP_TITLE
            bottom = (max(b.y + b.height for b in members) + GROUP_PADDING
                      + LINE_HEIGHT * len(lines))
            groups.append({'activity': activity, 'key': activity.lower().replace(' ', '_'),
                           'x': x - GROUP_PADDING, 'y': frame_top,
                           'width': width * NODE_WIDTH + (width - 1) * COLUMN_GAP
                           + 2 * GROUP_PADDING, 'height': bottom - frame_top, 'lines': lines})
        x += width * (NODE_WIDTH + COLUMN_GAP) + (GROUP_PADDING if activity else 0.0)
        column += width
    _place_band(boxes, band, first, tops, column)
    shift = MARGIN - min([box.x for box in boxes] + [g['x'] for g in groups])
    for box in boxes:
        box.x += shift
    for group in groups:
        group['x'] += shift
    return groups


def _links(box: Box, other: Box) -> int:
    return (sum(1 for target in (*box.outcomes.values(), *box.interrupts.values())
                if target == other.role)
            + sum(1 for target in (*other.outcomes.values(), *other.interrupts.values())
                  if target == box.role))


def _place_band(boxes: List[Box], band: List[Box], first: int, tops: Dict[int, float],
                columns: int) -> None:
    """
    Place the rows above the activities, the lowest first.

    A role linked to roles placed already stands over their middle; then, one by one, the
    role most linked to its row's placed roles stands at their right; one linked to none of them
    at their left.
    """
    placed = [box for box in boxes if box not in band]
    for row in range(first - 1, -1, -1):
        waiting = [box for box in band if box.row == row]
        in_row: List[Box] = []
        for box in list(waiting):
            near = [other for other in placed if _links(box, other)]
            if near:
                centre = sum(other.x + other.width / 2 for other in near) / len(near)
                box.x = centre - box.width / 2
                in_row.append(box)
                waiting.remove(box)
        in_row.sort(key=lambda box: box.x)
        for box in in_row[1:]:
            box.x = max(box.x, in_row[in_row.index(box) - 1].x + NODE_WIDTH + BAND_GAP)
        while waiting:
            best = max(waiting, key=lambda box: sum(_links(box, other) for other in in_row))
            waiting.remove(best)
            linked = any(_links(best, other) for other in in_row)
            if not in_row:
                best.x = MARGIN
            elif linked:
                best.x = max(box.x for box in in_row) + NODE_WIDTH + BAND_GAP
            else:
                best.x = min(box.x for box in in_row) - NODE_WIDTH - BAND_GAP
            in_row.append(best)
        for box in in_row:
            box.y = tops[row]
            box.column = columns + len(placed)  # a column of its own: no arrow bends around
            placed.append(box)


Frame = Tuple[float, float, float, float]  # x, y, width, height


def _side(source: Frame, target: Frame, same_column: bool,
          frames: List[Frame]) -> Tuple[str, str]:
    """Return the sides an arrow leaves ``source`` and enters ``target`` by."""
    sx, sy, sw, sh = source
    tx, ty, tw, th = target
    if ty >= sy + sh:
        return 'bottom', 'top'
    if ty + th <= sy:
        return ('right', 'right') if same_column else ('top', 'bottom')
    low, high = min(sx + sw, tx + tw), max(sx, tx)
    if any(low <= x and x + w <= high and y < sy + sh and y + h > sy
           for x, y, w, h in frames):
        return 'top', 'top'  # a box stands between: over it
    return ('right', 'left') if tx >= sx + sw else ('left', 'right')


def _point(frame: Frame, side: str, share: float) -> Tuple[float, float]:
    """Return the point of ``side`` of ``frame`` at ``share`` (0..1) along it."""
    x, y, width, height = frame
    if side in ('top', 'bottom'):
        return x + width * share, y if side == 'top' else y + height
    return x if side == 'left' else x + width, y + height * share


def _bezier(p0: Tuple[float, float], p1: Tuple[float, float], p2: Tuple[float, float],
            p3: Tuple[float, float], t: float) -> Tuple[float, float]:
    u = 1.0 - t
    return tuple(u ** 3 * a + 3 * u * u * t * b + 3 * u * t * t * c + t ** 3 * d  # type: ignore
                 for a, b, c, d in zip(p0, p1, p2, p3))


def _controls(start: Tuple[float, float], end: Tuple[float, float], sides: Tuple[str, str],
              bulge: float) -> Tuple[Tuple[float, float], Tuple[float, float]]:
    """Return the control points of an arrow leaving and entering by ``sides``."""
    (sx, sy), (ex, ey) = start, end
    reach = max(24.0, abs(ey - sy) / 2, abs(ex - sx) / 3)
    direction = {'top': (0, -1), 'bottom': (0, 1), 'left': (-1, 0), 'right': (1, 0)}
    (dx0, dy0), (dx1, dy1) = direction[sides[0]], direction[sides[1]]
    if sides in (('right', 'right'), ('top', 'top')):
        reach = bulge
    return (sx + dx0 * reach, sy + dy0 * reach), (ex + dx1 * reach, ey + dy1 * reach)


def route(placed: List[Arrow], frames: Dict[str, Frame],
          columns: Dict[str, Optional[int]]) -> List[Dict[str, Any]]:
    """Return each arrow with its path and the place of its label."""
    sides = {}
    ports: Dict[Tuple[str, str], List[Tuple[float, int, str]]] = {}
    for index, arrow in enumerate(placed):
        source, target = frames[arrow.source], frames[arrow.target]
        same = columns[arrow.source] is not None and columns[arrow.source] == columns[arrow.target]
        pair = _side(source, target, same, list(frames.values()))
        sides[index] = pair
        for owner, side, other in ((arrow.source, pair[0], target),
                                   (arrow.target, pair[1], source)):
            along = (other[0] + other[2] / 2 if side in ('top', 'bottom')
                     else other[1] + other[3] / 2)
            ports.setdefault((owner, side), []).append((along, index, owner))
    shares: Dict[Tuple[int, str], float] = {}
    for (owner, _side_name), used in ports.items():
        used.sort()
        for order, (_, index, _) in enumerate(used):
            shares[(index, owner)] = (order + 1) / (len(used) + 1)
    routed = []
    bulges: Dict[str, int] = {}
    for index, arrow in enumerate(placed):
        pair = sides[index]
        start = _point(frames[arrow.source], pair[0], shares[(index, arrow.source)])
        end = _point(frames[arrow.target], pair[1], shares[(index, arrow.target)])
        bulge = 28.0
        if pair == ('right', 'right'):  # the bends of one column apart, labels and all
            column = str(columns[arrow.source])
            bulges[column] = bulges.get(column, 0) + 1
            bulge = 6.0 + 20.0 * bulges[column]
        elif pair == ('top', 'top'):
            bulge = 24.0 + abs(end[0] - start[0]) * 0.15
        c0, c1 = _controls(start, end, pair, bulge)
        label = _bezier(start, c0, c1, end, LABEL_AT)
        path = (f'M{start[0]:.1f},{start[1]:.1f} C{c0[0]:.1f},{c0[1]:.1f} '
                f'{c1[0]:.1f},{c1[1]:.1f} {end[0]:.1f},{end[1]:.1f}')
        if pair == ('right', 'right'):  # along the bend, upright: it fits the gap
            label = _bezier(start, c0, c1, end, 0.5)
        routed.append({'from': arrow.source, 'to': arrow.target, 'kind': arrow.kind,
                       'labels': arrow.labels, 'path': path,
                       'label_x': round(label[0], 1), 'label_y': round(label[1], 1),
                       'label_upright': pair == ('right', 'right')})
    return routed
