"""ament_pep257: docstrings, where present, follow PEP 257."""

import pathlib

from ament_pep257.main import main
import pytest

PACKAGE = pathlib.Path(__file__).resolve().parents[1]
CONTROL = PACKAGE.parent / 'robot_sm_control'


@pytest.mark.linter
@pytest.mark.pep257
def test_pep257() -> None:
    rc = main(argv=[str(PACKAGE / 'robot_sm'), str(PACKAGE / 'test'),
                    str(CONTROL / 'robot_sm_control'), str(CONTROL / 'test')])
    assert rc == 0, 'Found code style errors / warnings'
