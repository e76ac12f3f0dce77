"""
An occupancy grid as a small PNG for the page: four colours, north up, one pixel a cell.

The grid's rows start at its origin (the lowest y), an image's at the top, so the rows are
flipped. Cells are classed as unknown (-1), free (at most :data:`FREE_THRESHOLD`), occupied (at
least :data:`OCCUPIED_THRESHOLD`) or in between, and written as an 8-bit palette PNG, which
zlib packs well: a 160 x 120 office is about a kilobyte. Pure: numpy and zlib only.
"""

from dataclasses import dataclass
import struct
from typing import Sequence
import zlib

import numpy as np

#: Occupancy (0..100) up to which a cell is free, and from which it is occupied (map_server's
#: trinary thresholds, 0.25 and 0.65).
FREE_THRESHOLD = 25
OCCUPIED_THRESHOLD = 65
#: Palette: unknown, free, occupied, in between.
PALETTE = bytes([0xc9, 0xcd, 0xd3, 0xff, 0xff, 0xff, 0x22, 0x26, 0x2e, 0x8c, 0x90, 0x96])
UNKNOWN, FREE, OCCUPIED, BETWEEN = range(4)
#: The largest grid drawn (cells a side); a larger one is refused rather than sent.
MAX_SIDE = 8192


@dataclass(frozen=True)
class MapPicture:
    """A grid as a PNG and the share of its cells that are known."""

    png: bytes
    width: int
    height: int
    known: float


def classes(data: Sequence[int], width: int, height: int) -> np.ndarray:
    """Return the cells' palette indices, top row first (the grid's last row)."""
    cells = np.asarray(data, dtype=np.int16)
    if width <= 0 or height <= 0 or width > MAX_SIDE or height > MAX_SIDE:
        raise ValueError(f'a map of {width} x {height} cells is not drawn (at most '
                         f'{MAX_SIDE} a side)')
    if cells.size != width * height:
        raise ValueError(f'the map has {cells.size} cells, not {width} x {height}')
    indices = np.full(cells.shape, BETWEEN, dtype=np.uint8)
    indices[cells < 0] = UNKNOWN
    indices[(cells >= 0) & (cells <= FREE_THRESHOLD)] = FREE
    indices[cells >= OCCUPIED_THRESHOLD] = OCCUPIED
    return indices.reshape(height, width)[::-1]


def _chunk(kind: bytes, body: bytes) -> bytes:
    return (struct.pack('>I', len(body)) + kind + body
            + struct.pack('>I', zlib.crc32(kind + body) & 0xffffffff))


def png(indices: np.ndarray) -> bytes:
    """Return the palette PNG of ``indices`` (rows of palette indices, top row first)."""
    height, width = indices.shape
    rows = np.zeros((height, width + 1), dtype=np.uint8)  # filter type 0 before each row
    rows[:, 1:] = indices
    return b''.join([
        b'\x89PNG\r\n\x1a\n',
        _chunk(b'IHDR', struct.pack('>IIBBBBB', width, height, 8, 3, 0, 0, 0)),
        _chunk(b'PLTE', PALETTE),
        _chunk(b'IDAT', zlib.compress(rows.tobytes(), 6)),
        _chunk(b'IEND', b''),
    ])


def map_picture(data: Sequence[int], width: int, height: int) -> MapPicture:
    """
    Return the picture of a grid of ``width`` x ``height`` cells (row-major from its origin).

    :raises ValueError: if the size does not match the data or is beyond :data:`MAX_SIDE`.
    """
    indices = classes(data, width, height)
    known = float(np.count_nonzero(indices != UNKNOWN)) / indices.size
    return MapPicture(png(indices), width, height, known)
