"""
Control of the robot and its audit log, as :class:`robot_sm.client.SuiteClient` gives them.

Who holds control comes from the suite's latched ``robot_sm/control``
(:meth:`ControlCalls.control`); the control commands go to the gateway as the client's operator
(:meth:`ControlCalls.take_control` ...), and the audit log is read back from the suite
(``robot_sm/get_audit``, :meth:`ControlCalls.audit`).
"""

from dataclasses import dataclass, field
import json
from typing import Any, Dict, Optional

from robot_sm.client.connection import Result, SuiteConnection
from robot_sm.contract import Code, Command as Kind, CONTROL, GET_AUDIT
from robot_sm_msgs.msg import ControlState
from robot_sm_msgs.srv import GetAudit

#: The audit entries' kinds by number (``AuditEntry.KIND_*``).
KINDS = {0: 'command', 1: 'control', 2: 'stop', 3: 'raw'}


def _seconds(stamp: Any) -> float:
    return float(stamp.sec) + float(stamp.nanosec) * 1e-9


@dataclass
class ControlInfo:
    """Who holds control of the robot (``robot_sm/control``)."""

    held: bool = False
    holder: str = ''
    surface: str = ''
    address: str = ''
    #: Wall-clock seconds (since the epoch) of the acquisition and of the last sign of life.
    since: float = 0.0
    last_heard: float = 0.0
    stale_after: float = 0.0
    stale: bool = False
    #: Who held control before the last take-over ('' for nobody), and when.
    taken_from: str = ''
    taken_at: float = 0.0
    raw_ros_open: bool = False
    #: Whether the client's operator holds it.
    mine: bool = False


def control_info(msg: ControlState, operator: str) -> ControlInfo:
    """Return a ``robot_sm_msgs/ControlState`` as seen by ``operator``."""
    held = bool(msg.held)
    return ControlInfo(
        held=held, holder=str(msg.holder.name) if held else '',
        surface=str(msg.holder.surface) if held else '',
        address=str(msg.holder.address) if held else '',
        since=_seconds(msg.since) if held else 0.0,
        last_heard=_seconds(msg.last_heard) if held else 0.0,
        stale_after=float(msg.stale_after), stale=bool(msg.stale),
        taken_from=str(msg.taken_from.name), taken_at=_seconds(msg.taken_at),
        raw_ros_open=bool(msg.raw_ros_open),
        mine=held and str(msg.holder.name) == operator)


@dataclass
class AuditRecord:
    """One entry of the audit log."""

    time: float
    kind: str
    operator: str
    surface: str
    address: str
    command: str
    arguments: Dict[str, Any] = field(default_factory=dict)
    success: bool = True
    code: str = 'done'
    message: str = ''


def audit_record(entry: Any) -> AuditRecord:
    """Return an ``robot_sm_msgs/AuditEntry`` as a record."""
    try:
        arguments = json.loads(entry.arguments) if entry.arguments else {}
    except ValueError:
        arguments = {'text': str(entry.arguments)}
    code = Code(entry.code).name.lower() if entry.code in Code._value2member_map_ else \
        str(entry.code)
    return AuditRecord(_seconds(entry.stamp), KINDS.get(entry.kind, str(entry.kind)),
                       str(entry.by.name), str(entry.by.surface), str(entry.by.address),
                       str(entry.command), arguments if isinstance(arguments, dict) else {},
                       bool(entry.success), code, str(entry.message))


class ControlCalls(SuiteConnection):
    """Control and the audit log; :class:`robot_sm.client.SuiteClient` has them all."""

    def control(self, wait: bool = True) -> Optional[ControlInfo]:
        """
        Tell who holds control; None when ``wait`` is false and nothing came yet.

        ``ros2 topic echo --once --qos-durability transient_local --qos-reliability reliable
        robot_sm/control robot_sm_msgs/msg/ControlState``
        """
        msg = self.latched(ControlState, CONTROL, wait=wait)
        return None if msg is None else control_info(msg, str(self.by.name))

    def _control(self, kind: Kind, stale_after: float = 0.0) -> Result:
        result = self.command(kind, stale_after=stale_after)
        info = self.control(wait=False)
        result.data = info
        return result

    def take_control(self, stale_after: float = 0.0) -> Result:
        """
        Take control: acquire it when free, take it over from its holder (who is told).

        ``stale_after``: the silence after which this operator's control goes stale (0: the
        suite's idle time), for a surface that keeps it alive (:meth:`keep_control`).
        """
        return self._control(Kind.TAKE_CONTROL, stale_after)

    def acquire_control(self, stale_after: float = 0.0) -> Result:
        """Acquire control only when nobody holds it (or its holder is stale)."""
        return self._control(Kind.ACQUIRE_CONTROL, stale_after)

    def release_control(self) -> Result:
        """Give control up (the holder only)."""
        return self._control(Kind.RELEASE_CONTROL)

    def keep_control(self, stale_after: float = 0.0) -> Result:
        """Keep control alive: the holder's keep-alive."""
        return self.command(Kind.KEEP_CONTROL, stale_after=stale_after)

    def audit(self, since: float = 0.0, operator: str = '', limit: int = 0) -> Result:
        """
        Read the audit log (``data``: list of :class:`AuditRecord`, oldest first).

        ``since``: wall-clock seconds; ``operator``: only theirs; ``limit``: the newest N.
        ``ros2 service call robot_sm/get_audit robot_sm_msgs/srv/GetAudit "{limit: 20}"``
        """
        request = GetAudit.Request(since=float(since), by=operator, limit=max(0, int(limit)))
        response = self.call(GetAudit, GET_AUDIT, request)
        return Result(bool(response.success), str(response.message),
                      [audit_record(entry) for entry in response.entries])
