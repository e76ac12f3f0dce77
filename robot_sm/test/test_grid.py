"""Occupancy grids and the map_server map format."""

import pathlib

import numpy as np
from PIL import Image
import pytest
from robot_sm.grid import FREE, load_map, MapFileError, OccupancyGrid, OCCUPIED, UNKNOWN

WORLDS = pathlib.Path(__file__).resolve().parents[1] / 'config' / 'worlds'


def write_map(tmp_path: pathlib.Path, pixels: np.ndarray, **meta: object) -> pathlib.Path:
    Image.fromarray(pixels.astype(np.uint8)).save(tmp_path / 'm.pgm')
    fields = {'image': 'm.pgm', 'resolution': 0.5, 'origin': [-1.0, 2.0, 0.0],
              'occupied_thresh': 0.65, 'free_thresh': 0.196, **meta}
    text = '\n'.join(f'{key}: {value}' for key, value in fields.items())
    path = tmp_path / 'm.yaml'
    path.write_text(text + '\n')
    return path


def test_pixels_become_trinary_cells_with_the_top_row_at_the_highest_y(
        tmp_path: pathlib.Path) -> None:
    pixels = np.array([[0, 254, 205],
                       [254, 254, 0]])
    grid = load_map(write_map(tmp_path, pixels))
    assert grid.resolution == 0.5 and (grid.origin_x, grid.origin_y) == (-1.0, 2.0)
    # Row 0 of the grid is the image's bottom row.
    assert grid.data.tolist() == [[FREE, FREE, OCCUPIED], [OCCUPIED, FREE, UNKNOWN]]
    assert grid.value_at(-0.9, 2.1) == FREE
    assert grid.value_at(0.1, 2.9) == UNKNOWN
    assert grid.value_at(-0.9, 2.6) == OCCUPIED
    assert grid.value_at(-5.0, 0.0) == UNKNOWN  # off the map


def test_negate_inverts_the_pixels(tmp_path: pathlib.Path) -> None:
    grid = load_map(write_map(tmp_path, np.array([[0, 254]]), negate=1))
    assert grid.data.tolist() == [[FREE, OCCUPIED]]  # black is free when negated


@pytest.mark.parametrize('meta, problem', [
    ({'resolution': -0.1}, 'resolution must be positive'),
    ({'resolution': 'x'}, 'resolution must be a finite number'),
    ({'origin': [0.0, 0.0, 1.0]}, 'rotated origin'),
    ({'mode': 'scale'}, 'only mode trinary'),
    ({'image': 'missing.pgm'}, 'cannot read map image'),
])
def test_malformed_maps_are_refused_with_the_reason(
        tmp_path: pathlib.Path, meta: dict, problem: str) -> None:
    with pytest.raises(MapFileError, match=problem):
        load_map(write_map(tmp_path, np.zeros((2, 2)), **meta))


def test_shipped_worlds_load_with_walls_around_free_space() -> None:
    for name in ('office', 'maze'):
        grid = load_map(WORLDS / f'{name}.yaml')
        assert grid.resolution == 0.05
        assert grid.obstacles()[0, :].all() and grid.obstacles()[:, -1].all()
        assert 0.5 < grid.free().mean() < 0.95
        assert not grid.unknown().any()


def test_cell_geometry_round_trips() -> None:
    grid = OccupancyGrid(np.zeros((4, 6), np.int8), 0.25, origin_x=1.0, origin_y=-1.0)
    assert grid.cell_of(1.0, -1.0) == (0, 0)
    assert grid.cell_of(2.49, -0.01) == (3, 5)
    assert grid.center_of(3, 5) == (2.375, -0.125)
    assert grid.cell_of(*grid.center_of(2, 4)) == (2, 4)
    with pytest.raises(ValueError):
        OccupancyGrid(np.zeros((2, 2), np.int8), 0.0)
