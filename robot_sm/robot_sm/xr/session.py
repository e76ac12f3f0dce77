"""
A recorded XR controller session: poses, buttons and axes of both hands over time.

What the ``xr/<hand>/pose`` (geometry_msgs/PoseStamped) and ``xr/<hand>/joy`` (sensor_msgs/Joy)
topics carried, one sample per controller frame. Per hand: the grip position (m) and orientation
(quaternion ``[x, y, z, w]``) in the session's world frame, whether the pose was tracked (an
untracked pose is not published), and the Joy buttons and axes in the layout the teleop node
reads by default (buttons: primary, secondary, thumbstick click; axes: thumbstick x, thumbstick
y, trigger, squeeze).

Stored as a compressed ``.npz`` file (:meth:`XrSession.save`, :meth:`XrSession.load`); float32
values, which keep a tenth of a millimetre at arm's length.
"""

from dataclasses import dataclass
import os
from typing import Any, Dict, Mapping, Tuple, Union

import numpy as np

#: The hands of a session, as in the ``xr/<hand>/...`` topic names.
HANDS: Tuple[str, ...] = ('left', 'right')
#: Joy buttons and axes of each hand, in order.
BUTTONS: Tuple[str, ...] = ('primary', 'secondary', 'thumbstick_click')
AXES: Tuple[str, ...] = ('thumbstick_x', 'thumbstick_y', 'trigger', 'squeeze')
#: Format version written into every file.
VERSION = 1

PathLike = Union[str, 'os.PathLike[str]']


class SessionFileError(ValueError):
    """A session file that cannot be used; the message names the file and the problem."""


@dataclass(frozen=True)
class HandTrack:
    """One controller over a session: N samples."""

    position: np.ndarray      # (N, 3) float, metres
    orientation: np.ndarray   # (N, 4) float, [x, y, z, w]
    tracked: np.ndarray       # (N,) bool
    buttons: np.ndarray       # (N, len(BUTTONS)) 0 / 1
    axes: np.ndarray          # (N, len(AXES)) float


@dataclass(frozen=True)
class XrSession:
    """Samples of both hands at the times ``time`` (seconds from the start, increasing)."""

    time: np.ndarray
    hands: Mapping[str, HandTrack]
    frame_id: str = 'world'

    def __post_init__(self) -> None:
        """Check the arrays; :raises ValueError: unless they fit the times and are usable."""
        count = len(self.time)
        if count < 2 or not np.all(np.isfinite(self.time)) or np.any(np.diff(self.time) <= 0):
            raise ValueError('time: needs at least two finite, strictly increasing samples')
        if set(self.hands) != set(HANDS):
            raise ValueError(f"hands: must be {', '.join(HANDS)}, got {', '.join(self.hands)}")
        widths = {'position': 3, 'orientation': 4, 'buttons': len(BUTTONS), 'axes': len(AXES)}
        for hand, track in self.hands.items():
            for field, width in widths.items():
                shape = np.shape(getattr(track, field))
                if shape != (count, width):
                    raise ValueError(f'{hand} {field}: shape {shape}, expected {(count, width)}')
            if np.shape(track.tracked) != (count,):
                raise ValueError(f'{hand} tracked: shape {np.shape(track.tracked)}, '
                                 f'expected {(count,)}')
            for field in widths:
                if not np.all(np.isfinite(getattr(track, field))):
                    raise ValueError(f'{hand} {field}: must be finite')

    @property
    def duration(self) -> float:
        """Return the time of the last sample, in seconds."""
        return float(self.time[-1])

    def __len__(self) -> int:
        """Return the number of samples."""
        return len(self.time)

    def save(self, path: PathLike) -> None:
        """Write the session to a compressed ``.npz`` file."""
        arrays: Dict[str, Any] = {
            'version': np.array(VERSION), 'frame_id': np.array(self.frame_id),
            'time': np.asarray(self.time, dtype=np.float64)}
        for hand, track in self.hands.items():
            arrays[f'{hand}_position'] = np.asarray(track.position, dtype=np.float32)
            arrays[f'{hand}_orientation'] = np.asarray(track.orientation, dtype=np.float32)
            arrays[f'{hand}_tracked'] = np.asarray(track.tracked, dtype=bool)
            arrays[f'{hand}_buttons'] = np.asarray(track.buttons, dtype=np.uint8)
            arrays[f'{hand}_axes'] = np.asarray(track.axes, dtype=np.float32)
        with open(path, 'wb') as stream:
            np.savez_compressed(stream, **arrays)

    @classmethod
    def load(cls, path: PathLike) -> 'XrSession':
        """
        Read a session written by :meth:`save`.

        :raises SessionFileError: naming the file and the problem.
        """
        try:
            with np.load(path, allow_pickle=False) as content:
                arrays = {key: content[key] for key in content.files}
        except OSError as error:
            raise SessionFileError(f'{path}: {error.strerror or error}') from None
        except ValueError as error:
            raise SessionFileError(f'{path}: not a session file ({error})') from None
        try:
            if int(arrays['version']) != VERSION:
                raise SessionFileError(f"{path}: format version {int(arrays['version'])}, "
                                       f'this reader knows {VERSION}')
            hands = {hand: HandTrack(
                arrays[f'{hand}_position'].astype(float),
                arrays[f'{hand}_orientation'].astype(float),
                arrays[f'{hand}_tracked'].astype(bool),
                arrays[f'{hand}_buttons'].astype(float),
                arrays[f'{hand}_axes'].astype(float)) for hand in HANDS}
            return cls(arrays['time'].astype(float), hands, str(arrays['frame_id']))
        except KeyError as error:
            raise SessionFileError(f'{path}: not a session file (no {error})') from None
        except ValueError as error:
            raise SessionFileError(f'{path}: {error}') from None
