"""ament_flake8 with the ROS configuration (99 columns, google import order, single quotes)."""

import pathlib

from ament_flake8.main import main_with_errors
import pytest

PACKAGE = pathlib.Path(__file__).resolve().parents[1]
#: Beside the package in this repository: the controller library, benchmarks and setup tools are
#: held to the same style.
SIBLINGS = [PACKAGE.parent / name for name in ('robot_sm_control', 'bench', 'tools')]


@pytest.mark.flake8
@pytest.mark.linter
def test_flake8() -> None:
    paths = [str(PACKAGE)] + [str(path) for path in SIBLINGS if path.is_dir()]
    rc, errors = main_with_errors(argv=paths)
    assert rc == 0, f'Found {len(errors)} code style errors / warnings:\n' + '\n'.join(errors)
