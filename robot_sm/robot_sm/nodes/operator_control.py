"""
Control of the robot and the audit log, kept by the state interface for its command gateway.

:class:`OperatorControl` holds the :class:`~robot_sm.gateway.control.ControlLease` and the
:class:`~robot_sm.gateway.audit.AuditLog`: it decides, for the gateway, whether a command may
be given (and acquires control for it), carries out the control commands, publishes who holds
control on ``robot_sm/control`` (transient local) on every change (a holder going stale too),
appends every audited entry to the audit file before the gateway answers and publishes it on
``robot_sm/audit``, writes the mux's records of STOPs (``robot_sm/_mux/audit``) the same way,
and serves the log back (``robot_sm/get_audit``).
"""

import collections
import json
import time
from typing import Any, Deque, Dict, List, Optional

from builtin_interfaces.msg import Time
from rclpy.node import Node
from robot_sm.contract import AUDIT, Code, Command as Kind, CONTROL, GET_AUDIT, MUX_AUDIT
from robot_sm.gateway.audit import AuditLog, latest_records, Record
from robot_sm.gateway.control import ControlLease, Decision, IDLE_TIMEOUT
from robot_sm.gateway.request import OperatorId
from robot_sm.nodes.command_messages import operator_message, operator_of
from robot_sm.parameters import duration, Param
from robot_sm.qos import KEPT_RECORDS, RECORDS, SERVICES, STATE
from robot_sm.storage import default_file
from robot_sm_msgs.msg import AuditEntry, ControlState
from robot_sm_msgs.srv import GetAudit

#: The audit entry kinds, by the record's kind.
KINDS = {'command': AuditEntry.KIND_COMMAND, 'control': AuditEntry.KIND_CONTROL,
         'stop': AuditEntry.KIND_STOP, 'raw': AuditEntry.KIND_RAW}
KIND_NAMES = {value: name for name, value in KINDS.items()}
#: Seconds between two looks for a holder gone stale.
STALE_CHECK_PERIOD = 0.5
#: The audit lines kept in mind to know the mux's replayed records (the mux replays 100).
KNOWN_MUX_RECORDS = 1000


def parameters(namespace: str = '/') -> List[Param]:
    """Return the specifications of the control and audit parameters of the state interface."""
    return [
        duration('control_idle_timeout', IDLE_TIMEOUT, 'Silence (no command, no keep-alive) '
                 'after which the operator holding control is stale: anyone may take control '
                 'without forcing.', 1.0, 3600.0),
        Param('control_raw_ros_open', False, 'Let raw ROS callers (no operator named) operate '
              'the robot even while an operator holds control (a lab setting; by default '
              'they may only while nobody holds it).'),
        Param('audit_file', default_file(namespace, 'audit.jsonl'), 'JSON-lines file every '
              "operator command, control change and STOP is appended to; '' disables it."),
        Param('audit_max_bytes', 10 * 1024 * 1024, 'Size at which the audit file is rotated '
              '(audit.jsonl.1, ...).', minimum=4096),
        Param('audit_files', 5, 'Audit files kept (the newest and its rotations): the log '
              'never takes more than audit_files * audit_max_bytes.', minimum=1, maximum=100),
    ]


def time_msg(seconds: float) -> Time:
    """Return seconds since the epoch as a ``builtin_interfaces/Time``."""
    whole = int(seconds)
    return Time(sec=whole, nanosec=int((seconds - whole) * 1e9))


def record_of(entry: AuditEntry) -> Record:
    """Return the audit record of an entry message."""
    try:
        arguments = json.loads(entry.arguments) if entry.arguments else {}
    except ValueError:
        arguments = {'text': entry.arguments}
    code = Code(entry.code).name.lower() if entry.code in Code._value2member_map_ else \
        str(entry.code)
    return Record(entry.stamp.sec + entry.stamp.nanosec * 1e-9,
                  KIND_NAMES.get(entry.kind, 'command'), entry.by.name, entry.by.surface,
                  entry.by.address, entry.command, arguments, bool(entry.success), code,
                  entry.message)


def entry_of(record: Record) -> AuditEntry:
    """Return the entry message of an audit record."""
    entry = AuditEntry(stamp=time_msg(record.time), kind=KINDS.get(record.kind, 0),
                       command=record.command, arguments=json.dumps(record.arguments),
                       success=record.success, message=record.message)
    entry.by = operator_message(OperatorId(record.operator, record.surface, record.address))
    codes = {code.name.lower(): int(code) for code in Code}
    entry.code = codes.get(record.code, 0)
    return entry


class OperatorControl:
    """The lease, the audit log and their topics and service, on ``node``."""

    def __init__(self, node: Node, values: Dict[str, Any]) -> None:
        self._node = node
        self.lease = ControlLease(values['control_idle_timeout'],
                                  values['control_raw_ros_open'])
        self.log: Optional[AuditLog] = None
        if values['audit_file']:
            self.log = AuditLog(values['audit_file'], values['audit_max_bytes'],
                                values['audit_files'])
        self._control_pub = node.create_publisher(ControlState, CONTROL, STATE)
        self._audit_pub = node.create_publisher(AuditEntry, AUDIT, RECORDS)
        # The mux's last records are replayed to a state interface that (re)starts: those it
        # wrote before are known by their line in the file's tail.
        self._written_lines: Deque[str] = collections.deque(maxlen=KNOWN_MUX_RECORDS)
        if self.log is not None:
            self._written_lines.extend(
                r.line() for r in latest_records(self.log.paths(), limit=KNOWN_MUX_RECORDS))
        node.create_subscription(AuditEntry, MUX_AUDIT, self._on_mux_record, KEPT_RECORDS)
        node.create_service(GetAudit, GET_AUDIT, self._on_get_audit, qos_profile=SERVICES)
        self._stale = False
        node.create_timer(STALE_CHECK_PERIOD, self._check_stale)
        self.publish()

    @staticmethod
    def now() -> float:
        """Return the time of silences: monotonic, real time (an operator is a person)."""
        return time.monotonic()

    # -- control ----------------------------------------------------------------------------

    def check(self, by: OperatorId, kind: Kind) -> Decision:
        """
        Decide whether ``by`` may give ``kind``; it may acquire control for it.

        An acquisition is the command's until it is carried out: :meth:`acquired` then
        publishes it, :meth:`undo_acquire` takes it back if the command was refused.
        """
        return self.lease.check(by, kind, self.now())

    def acquired(self, by: OperatorId, kind: Kind) -> None:
        """Publish and audit that ``by``'s command ``kind`` acquired control."""
        self.publish()
        self.record('control', by, 'acquire_control', {}, True, Code.DONE,
                    f'control acquired by {by.name} with its first command ({kind.label})')

    def undo_acquire(self, by: OperatorId) -> None:
        """Let control go free again: the command that acquired it was refused."""
        self.lease.release(by, self.now())

    def control_command(self, by: OperatorId, kind: Kind, stale_after: float) -> Any:
        """Carry out a control command; return its answer (success, message)."""
        lease, now = self.lease, self.now()
        before = lease.holder.by if lease.holder is not None else None
        if kind is Kind.ACQUIRE_CONTROL:
            answer = lease.acquire(by, stale_after, now)
        elif kind is Kind.TAKE_CONTROL:
            answer = lease.take(by, stale_after, now)
        elif kind is Kind.RELEASE_CONTROL:
            answer = lease.release(by, now)
        else:
            answer = lease.keep(by, stale_after, now)
        after = lease.holder.by if lease.holder is not None else None
        if after != before or (kind is not Kind.KEEP_CONTROL and answer.success):
            self._stale = lease.stale(now)
            self.publish()
        if kind is not Kind.KEEP_CONTROL or not answer.success:
            self.record('control', by, kind.label, {}, answer.success,
                        Code.DONE if answer.success else Code.NOT_IN_CONTROL, answer.message)
        return answer

    def _check_stale(self) -> None:
        stale = self.lease.stale(self.now())
        if stale == self._stale:
            return
        self._stale = stale
        self.publish()
        holder = self.lease.holder
        if stale and holder is not None:
            self.record('control', holder.by, 'control_stale', {}, True, Code.DONE,
                        f'control of {holder.by.name} went stale: silent for more than '
                        f'{holder.stale_after:g} s; anyone may take it')

    def state(self) -> ControlState:
        """Return who holds control, as ``robot_sm/control`` says it."""
        lease = self.lease
        msg = ControlState(raw_ros_open=lease.raw_ros_open)
        holder = lease.holder
        if holder is not None:
            now, wall = self.now(), time.time()
            msg.held, msg.holder = True, operator_message(holder.by)
            msg.since = time_msg(holder.since_wall)
            msg.last_heard = time_msg(wall - holder.silence(now))
            msg.stale_after, msg.stale = holder.stale_after, holder.stale(now)
        if lease.taken_from is not None:
            msg.taken_from, msg.taken_at = operator_message(lease.taken_from), \
                time_msg(lease.taken_at)
        return msg

    def publish(self) -> None:
        """Publish who holds control."""
        self._control_pub.publish(self.state())

    # -- the audit log ----------------------------------------------------------------------

    def record(self, kind: str, by: OperatorId, command: str, arguments: Dict[str, Any],
               success: bool, code: Code, message: str) -> None:
        """Append an entry to the audit file (flushed), then publish it."""
        self._write(Record(time.time(), kind, by.name, by.surface, by.address, command,
                           arguments, success, code.name.lower(), message))

    def _write(self, record: Record) -> None:
        if self.log is not None:
            try:
                self.log.append(record)
            except OSError as error:
                self._node.get_logger().error(f'audit entry not written ({error}): '
                                              f'{record.line()}')
        self._audit_pub.publish(entry_of(record))

    def _on_mux_record(self, entry: AuditEntry) -> None:
        record = record_of(entry)
        line = record.line()
        if line in self._written_lines:
            return  # replayed by the mux's kept history: written before this node restarted
        self._written_lines.append(line)
        self._write(record)

    def _on_get_audit(self, request: GetAudit.Request, response: GetAudit.Response) -> Any:
        if self.log is None:
            response.success = False
            response.message = 'the audit log is off (audit_file is empty)'
            return response
        records = latest_records(self.log.paths(), float(request.since), str(request.by),
                                 int(request.limit))
        response.entries = [entry_of(record) for record in records]
        response.success, response.message = True, str(self.log.path)
        return response

    def close(self) -> None:
        """Close the audit file."""
        if self.log is not None:
            self.log.close()


__all__ = ['OperatorControl', 'operator_of', 'parameters']
