"""How the mux words its refusals: the e-stop's, an unknown mode's, a silent supervisor's."""

from robot_sm.mux.config import SUPERVISOR_HEARTBEAT
from robot_sm.mux.status import Mode
from robot_sm.mux.watchdog import Watchdog

#: The service that releases the e-stop, named in refusals.
RELEASE_SERVICE = 'robot_sm/emergency_stop'
#: A mode selected while the e-stop is engaged.
ENGAGED = ('emergency stop is engaged: mode changes are refused until it is released with '
           f'{RELEASE_SERVICE}')
#: A mode request (``emergency_stop`` false) while the e-stop is engaged: it releases nothing.
NOT_A_RELEASE = ('emergency stop is engaged: a mode request does not release it; release it '
                 f'with {RELEASE_SERVICE} (data: false), then select a mode')

_MODE_NAMES = ', '.join(f'{mode.value} ({mode.name})' for mode in Mode)


def unknown_mode(mode: int) -> str:
    """Say that ``mode`` is not a mode."""
    return f'unknown mode {mode}: operation_mode.mode must be one of {_MODE_NAMES}'


def supervisor_silent(supervisor: Watchdog, now: float) -> str:
    """Say why AUTONOMOUS is refused while the ``supervisor`` watchdog finds it silent."""
    silence = supervisor.silence(now)
    how = ('has not been heard since the mux started (is the state interface running?)'
           if silence is None else f'has been silent for {silence:.2f} s '
           f'(supervisor_timeout {supervisor.timeout:g} s)')
    return (f'the supervisor ({SUPERVISOR_HEARTBEAT}) {how}: AUTONOMOUS is refused until it is '
            'heard again; TELEOPERATION and STOPPED can be selected')
