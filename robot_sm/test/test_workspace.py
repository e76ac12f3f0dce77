"""A plain colcon workspace with this repository in src/ finds both packages and nothing else."""

import pathlib
import shutil
import subprocess

import pytest

REPOSITORY = pathlib.Path(__file__).resolve().parents[2]


@pytest.mark.skipif(shutil.which('colcon') is None, reason='colcon is not installed')
def test_colcon_finds_both_packages(tmp_path: pathlib.Path) -> None:
    (tmp_path / 'src').mkdir()
    (tmp_path / 'src' / 'robot_sm').symlink_to(REPOSITORY, target_is_directory=True)
    result = subprocess.run(['colcon', 'list', '--names-only'], cwd=tmp_path,
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert sorted(result.stdout.split()) == ['robot_sm', 'robot_sm_msgs']
