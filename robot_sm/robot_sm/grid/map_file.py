"""
Load a map in the map_server format: a YAML file naming an image, its resolution and origin.

The YAML keys are those of nav2_map_server: ``image`` (relative to the YAML file), ``resolution``
(m/cell), ``origin`` ([x, y, yaw]; yaw must be 0 here), ``negate`` (0/1), ``occupied_thresh``,
``free_thresh`` and ``mode`` (only ``trinary``, the default). A pixel's occupancy is
``(255 - p) / 255`` (or ``p / 255`` when negated): above ``occupied_thresh`` it is occupied, below
``free_thresh`` free, otherwise unknown. The image's top row is the map's highest y. A world of
the simulation may add ``start_pose`` ([x, y, yaw]), where the simulated robot starts, and
``start_poses`` ([[x, y, yaw], ...]), where the robots of a simulated fleet start.
"""

import math
import pathlib
from typing import Any, Dict, List, Optional, Tuple, Union

import numpy as np
from PIL import Image
from robot_sm.grid.occupancy_grid import FREE, OccupancyGrid, OCCUPIED, UNKNOWN
import yaml


class MapFileError(ValueError):
    """A map YAML or image that cannot be loaded; the message names the file and the problem."""


def _number(meta: Dict[str, Any], key: str, default: float, path: pathlib.Path) -> float:
    value = meta.get(key, default)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise MapFileError(f'{path}: {key} must be a finite number, got {value!r}')
    return float(value)


def _read_yaml(path: pathlib.Path) -> Dict[str, Any]:
    try:
        meta = yaml.safe_load(path.read_text())
    except (OSError, yaml.YAMLError) as error:
        raise MapFileError(f'{path}: cannot read map YAML: {error}') from error
    if not isinstance(meta, dict) or 'image' not in meta:
        raise MapFileError(f'{path}: not a map YAML (no image key)')
    return meta


def _is_pose(value: Any) -> bool:
    return isinstance(value, list) and len(value) == 3 and all(
        isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)
        for v in value)


def load_start_pose(yaml_path: Union[str, pathlib.Path]) -> Optional[Tuple[float, float, float]]:
    """
    Return the world's ``start_pose: [x, y, yaw]`` (a key of ours), or None if it has none.

    map_server ignores keys it does not know, so the file stays a valid map YAML.

    :raises MapFileError: if the YAML cannot be read or the start pose is malformed.
    """
    path = pathlib.Path(yaml_path)
    start = _read_yaml(path).get('start_pose')
    if start is None:
        return None
    if not _is_pose(start):
        raise MapFileError(f'{path}: start_pose must be [x, y, yaw], got {start!r}')
    x, y, yaw = (float(v) for v in start)
    return x, y, yaw


def load_start_poses(yaml_path: Union[str, pathlib.Path]) -> List[Tuple[float, float, float]]:
    """
    Return the world's ``start_poses`` for a fleet (a key of ours), or ``[start_pose]``, or [].

    :raises MapFileError: if the YAML cannot be read or a start pose is malformed.
    """
    path = pathlib.Path(yaml_path)
    poses = _read_yaml(path).get('start_poses')
    if poses is None:
        single = load_start_pose(path)
        return [] if single is None else [single]
    if not isinstance(poses, list) or not all(_is_pose(pose) for pose in poses):
        raise MapFileError(f'{path}: start_poses must be a list of [x, y, yaw], got {poses!r}')
    return [(float(x), float(y), float(yaw)) for x, y, yaw in poses]


def load_map(yaml_path: Union[str, pathlib.Path]) -> OccupancyGrid:
    """
    Load the map described by ``yaml_path``.

    :raises MapFileError: if the YAML or the image is missing or malformed.
    """
    path = pathlib.Path(yaml_path)
    meta = _read_yaml(path)
    mode = meta.get('mode', 'trinary')
    if mode != 'trinary':
        raise MapFileError(f'{path}: only mode trinary is supported, got {mode!r}')
    resolution = _number(meta, 'resolution', math.nan, path)
    if resolution <= 0.0:
        raise MapFileError(f'{path}: resolution must be positive, got {resolution}')
    occupied_thresh = _number(meta, 'occupied_thresh', 0.65, path)
    free_thresh = _number(meta, 'free_thresh', 0.196, path)
    origin = meta.get('origin', [0.0, 0.0, 0.0])
    if not _is_pose(origin):
        raise MapFileError(f'{path}: origin must be [x, y, yaw], got {origin!r}')
    if origin[2] != 0:
        raise MapFileError(f'{path}: a rotated origin (yaw {origin[2]}) is not supported')
    image_path = path.parent / str(meta['image'])
    try:
        with Image.open(image_path) as image:
            pixels = np.asarray(image.convert('L'), dtype=np.float64)
    except OSError as error:
        raise MapFileError(f'{image_path}: cannot read map image: {error}') from error
    occupancy = pixels / 255.0 if meta.get('negate', 0) else (255.0 - pixels) / 255.0
    data = np.full(occupancy.shape, UNKNOWN, dtype=np.int8)
    data[occupancy > occupied_thresh] = OCCUPIED
    data[occupancy < free_thresh] = FREE
    return OccupancyGrid(np.flipud(data).copy(), resolution, float(origin[0]), float(origin[1]))
