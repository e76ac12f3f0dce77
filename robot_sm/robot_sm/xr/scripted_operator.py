"""
A scripted operator: the XR session shipped as ``config/xr_session.npz``, made reproducibly.

The operator stands with both controllers at waist height and, over 40 s at 90 Hz, goes through
everything the teleop node does (default bindings: left controller A/X = run toggle, B/Y = kill,
thumbstick click = reset; right controller squeeze = clutch, trigger = gripper, wrist twist =
roll):

====== =========================================================================================
 time  what the operator does
====== =========================================================================================
 1.0   A, A: STOPPED → PAUSED → RUNNING
 2.5   squeezes (engage), draws a horizontal circle (6 cm) — tracking drops out for 0.3 s at 6 s
 9.0   releases, moves the hand back (the arm holds), squeezes again at 11 s (re-engage)
11.4   lifts and turns the hand, twisting the wrist +0.8 then -0.5 rad (wrist roll)
16.0   pulls the trigger (gripper closes, then half open)
19.0   A: PAUSED; moves the hand 10 cm sideways (ignored); A at 21.5 s: RUNNING (no jump)
25.0   thumbstick click: reset (clutch home, roll 0, gripper open); a figure eight (5 cm)
29.0   releases; 29.5 holds B for 1 s: kill (STOPPED, a reset every tick)
31.0   A, A: RUNNING; squeezes at 32.3 s and draws a vertical circle, rolling and gripping
38.0   releases; A at 38.5 s: PAUSED
====== =========================================================================================

Positions are in a Z-up world frame (metres), with a little hand tremor from a seeded generator,
so the file is the same on every run: ``python -m robot_sm.xr.scripted_operator FILE`` writes it.
"""

import math
import sys
from typing import Callable, List, Optional, Sequence, Tuple, Union

import numpy as np

from robot_sm.teleop import quaternion
from robot_sm.xr.session import AXES, BUTTONS, HandTrack, XrSession

RATE_HZ = 90.0
DURATION = 40.0
SEED = 19
#: Where the hands rest (world frame, m).
REST = {'left': np.array([0.30, 0.25, 1.0]), 'right': np.array([0.30, -0.25, 1.0])}
#: Left-controller presses, (start, end) in seconds, per button.
PRESSES = {
    'primary': [(1.0, 1.3), (1.8, 2.1), (19.0, 19.3), (21.5, 21.8), (31.0, 31.3), (31.8, 32.1),
                (38.5, 38.8)],
    'secondary': [(29.5, 30.5)],
    'thumbstick_click': [(25.0, 25.3)],
}
#: Right squeeze and trigger, (time, value) keyframes with straight lines between them.
SQUEEZE = [(0.0, 0.0), (2.5, 0.0), (2.9, 1.0), (9.0, 1.0), (9.3, 0.0), (11.0, 0.0), (11.3, 1.0),
           (29.0, 1.0), (29.3, 0.0), (32.3, 0.0), (32.6, 1.0), (38.0, 1.0), (38.3, 0.0)]
TRIGGER = [(0.0, 0.0), (16.0, 0.0), (17.0, 1.0), (18.0, 1.0), (19.0, 0.4), (25.0, 0.4),
           (25.5, 0.0), (33.0, 0.0)]
#: Right tracking drop-outs, (start, end) in seconds.
UNTRACKED = [(6.0, 6.3)]
#: A fixed tilt of the controller in the hand (about world X), under the wrist twist.
TILT = quaternion.from_axis_angle(np.array([1.0, 0.0, 0.0]), 0.3)

Vector = np.ndarray
Keys = List[Tuple[float, Vector]]


def _eased(keys: Keys, end: float, offset: Union[Sequence[float], Vector],
           steps: int = 12) -> None:
    """Append a smooth (cosine-eased) move by ``offset`` from the last key to time ``end``."""
    start_time, start = keys[-1]
    for i in range(1, steps + 1):
        s = 0.5 - 0.5 * math.cos(math.pi * i / steps)
        keys.append((start_time + (end - start_time) * i / steps, start + s * np.array(offset)))


def _curve(keys: Keys, end: float, shape: Callable[[float], Sequence[float]],
           steps: int = 120) -> None:
    """Append ``start + shape(s)`` for s in (0, 1] up to time ``end`` (``shape(0)`` is zero)."""
    start_time, start = keys[-1]
    for i in range(1, steps + 1):
        s = i / steps
        keys.append((start_time + (end - start_time) * s, start + np.array(shape(s))))


def _hold(keys: Keys, until: float) -> None:
    keys.append((until, keys[-1][1]))


def right_hand_path() -> Keys:
    """Return the right hand's offsets from rest (m) as (time, offset) keys."""
    keys: Keys = [(0.0, np.zeros(3))]
    _hold(keys, 3.0)
    radius = 0.06   # horizontal circle, one turn, starting and ending where the hand is
    _curve(keys, 9.0, lambda s: (radius * (math.cos(2 * math.pi * s) - 1.0),
                                 radius * math.sin(2 * math.pi * s), 0.0))
    _hold(keys, 9.4)
    _eased(keys, 11.0, (-0.05, 0.03, -0.02))    # disengaged: the arm holds
    _hold(keys, 11.4)
    _eased(keys, 13.5, (0.05, 0.0, 0.08))
    _eased(keys, 16.0, (0.0, 0.08, -0.04))
    _hold(keys, 19.3)
    _eased(keys, 21.5, (0.0, -0.10, 0.0))       # paused: ignored
    _hold(keys, 21.8)
    _eased(keys, 25.0, (0.04, 0.0, -0.06))
    _hold(keys, 25.3)
    size = 0.05   # a figure eight in the y-z plane
    _curve(keys, 29.0, lambda s: (0.0, size * math.sin(2 * math.pi * s),
                                  0.5 * size * math.sin(4 * math.pi * s)))
    _hold(keys, 29.3)
    _eased(keys, 31.0, -keys[-1][1])            # back to rest
    _hold(keys, 32.7)
    radius = 0.05   # a vertical circle in the x-z plane
    _curve(keys, 38.0, lambda s: (radius * math.sin(2 * math.pi * s), 0.0,
                                  radius * (1.0 - math.cos(2 * math.pi * s))))
    _hold(keys, DURATION)
    return keys


def wrist_roll(t: np.ndarray) -> np.ndarray:
    """Return the right wrist's twist about world Z (rad) at times ``t``."""
    roll = np.interp(t, [0.0, 11.4, 13.0, 15.0, 16.0, 32.7], [0.0, 0.0, 0.8, -0.5, 0.0, 0.0])
    rolling = (t > 32.7) & (t < 38.0)
    return roll + np.where(rolling, 0.4 * np.sin(2.0 * math.pi * (t - 32.7) / 2.65), 0.0)


def _interpolate(keys: Sequence[Tuple[float, object]], t: np.ndarray) -> np.ndarray:
    times = [key[0] for key in keys]
    values = np.array([key[1] for key in keys], dtype=float).reshape(len(keys), -1)
    return np.stack([np.interp(t, times, values[:, i]) for i in range(values.shape[1])], axis=1)


def _windows(t: np.ndarray, windows: Sequence[Tuple[float, float]]) -> np.ndarray:
    inside = np.zeros(len(t), dtype=bool)
    for start, end in windows:
        inside |= (t >= start) & (t < end)
    return inside


def _tremor(rng: np.random.Generator, count: int, amplitude: float = 0.0004) -> np.ndarray:
    """Smooth random hand tremor (m), about ``amplitude`` in size."""
    noise = rng.normal(0.0, 1.0, size=(count + 8, 3))
    kernel = np.ones(9) / 9.0
    smooth = np.stack([np.convolve(noise[:, i], kernel, mode='valid') for i in range(3)], axis=1)
    return amplitude * smooth / 0.33


def record_session() -> XrSession:
    """Return the scripted session (the same arrays on every call)."""
    rng = np.random.default_rng(SEED)
    t = np.arange(int(DURATION * RATE_HZ) + 1) / RATE_HZ
    count = len(t)
    z = np.array([0.0, 0.0, 1.0])

    right_axes = np.zeros((count, len(AXES)))
    right_axes[:, AXES.index('squeeze')] = _interpolate(SQUEEZE, t)[:, 0]
    trigger = _interpolate(TRIGGER, t)[:, 0]
    gripping = (t > 33.0) & (t < 38.0)
    trigger = np.where(gripping, 0.5 - 0.5 * np.cos(2.0 * math.pi * (t - 33.0) / 2.5), trigger)
    right_axes[:, AXES.index('trigger')] = trigger
    right_orientation = np.array([quaternion.multiply(quaternion.from_axis_angle(z, roll), TILT)
                                  for roll in wrist_roll(t)])
    right = HandTrack(
        position=REST['right'] + _interpolate(right_hand_path(), t) + _tremor(rng, count),
        orientation=right_orientation, tracked=~_windows(t, UNTRACKED),
        buttons=np.zeros((count, len(BUTTONS))), axes=right_axes)

    left_buttons = np.zeros((count, len(BUTTONS)))
    for button, windows in PRESSES.items():
        left_buttons[:, BUTTONS.index(button)] = _windows(t, windows)
    left = HandTrack(
        position=REST['left'] + _tremor(rng, count), orientation=np.tile(TILT, (count, 1)),
        tracked=np.ones(count, dtype=bool), buttons=left_buttons,
        axes=np.zeros((count, len(AXES))))
    return XrSession(t, {'left': left, 'right': right}, frame_id='world')


def main(argv: Optional[List[str]] = None) -> int:
    """Write the scripted session to the file named on the command line."""
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print('usage: python -m robot_sm.xr.scripted_operator FILE.npz', file=sys.stderr)
        return 2
    session = record_session()
    session.save(args[0])
    print(f'{args[0]}: {len(session)} samples, {session.duration:.1f} s')
    return 0


if __name__ == '__main__':
    sys.exit(main())
