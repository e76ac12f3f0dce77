"""
What the mux reports about itself: the level and summary of its diagnostics, input by input.

The level is ERROR while the e-stop is engaged; WARN when the mode should move the base but no
input drives (stale, masked by a lock, disarmed, or none of the mode's class), when the
supervisor is lost, or when messages were dropped recently; OK otherwise.
"""

from typing import List, Tuple, TYPE_CHECKING

from robot_sm.mux.status import InputReport, Level, Mode, MuxStatus
from robot_sm.mux.velocity import Velocity

if TYPE_CHECKING:  # control_mux imports this module
    from robot_sm.mux.control_mux import ControlMux


def mux_status(mux: 'ControlMux', now: float) -> MuxStatus:
    """Return the diagnostics of ``mux`` at ``now``."""
    selected = mux.select(now)
    selection = mux.selection
    states = {name: selection.describe(state, selected, now)
              for name, state in selection.inputs.items()}
    states.update((name, lock.describe(now)) for name, lock in selection.locks.items())
    inputs = tuple(
        InputReport(name, stats.age(now), stats.rate(now), stats.received, stats.dropped,
                    states.get(name, ''))
        for name, stats in mux.inputs.items())
    if mux.emergency_stop:
        level, summary = Level.ERROR, f'emergency stop engaged: {mux.emergency_stop_reason}'
    elif mux.mode is Mode.STOPPED:
        level, summary = Level.OK, 'STOPPED: output is zero'
        heartbeat = mux.operator_heartbeat
        if heartbeat is not None and not heartbeat.heard:
            summary += '; ' + heartbeat.not_heard()
        elif not mux.operator_selected:
            summary += ('; no input takes over until an operator selects a mode '
                        '(robot_sm/set_operation_mode)')
    elif selected is None:
        level = Level.WARN
        summary = f'{mux.mode.name}: {selection.why_none(mux.mode, now)}; output is zero'
    else:
        level, summary = Level.OK, f'{mux.mode.name}: {selected.spec.name} commands are forwarded'
    if mux.supervisor_lost:
        level = max(level, Level.WARN)
        summary += '; ' + mux.supervisor_refusal(now)
    dropping = [name for name, stats in mux.inputs.items() if stats.dropped_recently(now)]
    if dropping:
        level = max(level, Level.WARN)
        summary += '; dropping non-finite or unscalable messages on ' + ', '.join(dropping)
    return MuxStatus(level, summary, mux.mode, mux.emergency_stop, mux.emergency_stop_reason,
                     mux.active_source, inputs, selection.lock_priority(now))


def key_values(status: MuxStatus, output: Velocity, locks: bool) -> List[Tuple[str, str]]:
    """
    Return the values of a diagnostic status: the mux's state, then each input's figures.

    ``output`` is what the base is told; with ``locks`` the priority below which the locks mask
    inputs is given too.
    """
    values = [
        ('mode', status.mode.name),
        ('emergency stop', str(status.emergency_stop).lower()),
        ('emergency stop reason', status.emergency_stop_reason or '-'),
        ('active source', status.active_source),
        ('output', ' '.join(f'{v:.3f}' for v in output)),
    ]
    if locks:
        values.append(('lock priority', str(status.lock_priority)))
    for report in status.inputs:
        age = 'never' if report.age is None else f'{report.age:.3f}'
        values += [
            (f'{report.name} age (s)', age),
            (f'{report.name} rate (Hz)', f'{report.rate:.1f}'),
            (f'{report.name} received', str(report.received)),
            (f'{report.name} dropped', str(report.dropped)),
        ]
        if report.state:
            values.append((f'{report.name} state', report.state))
    return values
