"""Find the files this package ships (worlds, URDFs, parameters), installed or in a checkout."""

import pathlib

PACKAGE = 'robot_sm'


def share_directory() -> pathlib.Path:
    """
    Return the package's share directory.

    The ament index is asked first (an installed package); failing that, the source checkout the
    module was imported from (``robot_sm/`` beside ``config/`` and ``launch/``).
    """
    try:
        from ament_index_python.packages import get_package_share_directory
        return pathlib.Path(get_package_share_directory(PACKAGE))
    except (ImportError, LookupError, ValueError):
        return pathlib.Path(__file__).resolve().parents[1]


def world_file(name_or_path: str) -> pathlib.Path:
    """Return the map YAML for a shipped world name (``office``, ``maze``) or a path to one."""
    if name_or_path.endswith(('.yaml', '.yml')) or '/' in name_or_path:
        return pathlib.Path(name_or_path).expanduser()
    return share_directory() / 'config' / 'worlds' / f'{name_or_path}.yaml'


def shipped_worlds() -> list[str]:
    """Return the names of the worlds shipped in ``config/worlds``."""
    return sorted(path.stem for path in (share_directory() / 'config' / 'worlds').glob('*.yaml'))
