"""The colcon workspace: what it finds in this repository, what sourcing its install gives."""

import os
import pathlib
import shutil
import subprocess
import sys

import pytest

REPOSITORY = pathlib.Path(__file__).resolve().parents[2]


@pytest.mark.skipif(shutil.which('colcon') is None, reason='colcon is not installed')
def test_colcon_finds_every_package(tmp_path: pathlib.Path) -> None:
    (tmp_path / 'src').mkdir()
    (tmp_path / 'src' / 'robot_sm').symlink_to(REPOSITORY, target_is_directory=True)
    result = subprocess.run(['colcon', 'list', '--names-only'], cwd=tmp_path,
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert sorted(result.stdout.split()) == ['robot_sm', 'robot_sm_control', 'robot_sm_msgs']


def installed_prefix() -> pathlib.Path:
    """Return the colcon install prefix robot_sm runs from (skip where it is not installed)."""
    from ament_index_python.packages import get_package_prefix, PackageNotFoundError
    try:
        return pathlib.Path(get_package_prefix('robot_sm'))
    except PackageNotFoundError:
        pytest.skip('robot_sm is not installed by colcon here')


def test_robot_sm_is_on_path_once_the_workspace_is_sourced() -> None:
    prefix = installed_prefix()
    # An isolated install has setup.bash above the package's prefix, a merged one in it.
    setup_script = next((p for p in (prefix / 'setup.bash', prefix.parent / 'setup.bash')
                         if p.is_file()), None)
    assert setup_script is not None, f'no setup.bash beside {prefix}'
    # A fresh shell: PATH has Python but no robot-sm (make test's environment adds one).
    path = [d for d in os.environ['PATH'].split(os.pathsep)
            if d and not (pathlib.Path(d) / 'robot-sm').exists()]
    path.insert(0, str(pathlib.Path(sys.executable).parent))
    shell = (f'source {setup_script} && command -v robot-sm && robot-sm --help && '
             'robot-sm plugins')
    result = subprocess.run(['bash', '-c', shell], capture_output=True, text=True, timeout=60,
                            env={**os.environ, 'PATH': os.pathsep.join(path)})
    assert result.returncode == 0, result.stderr
    assert pathlib.Path(result.stdout.splitlines()[0]) == prefix / 'bin' / 'robot-sm'
    assert 'Operate a running robot_sm suite.' in result.stdout
    assert 'Navigation' in result.stdout  # robot-sm plugins
    # ros2 run robot_sm robot-sm finds it where ament_python puts the executables.
    assert (prefix / 'lib' / 'robot_sm' / 'robot-sm').is_file()


#: A stand-in for Jazzy's launch_testing pytest plugin as a sourced ROS install has it: its hook
#: takes the 'path' argument that pytest 8 no longer passes, so pytest refuses to load it.
LAUNCH_TESTING_PLUGIN = 'def pytest_collect_file(parent, path):\n    return None\n'


@pytest.mark.parametrize('package, tests', [('robot_sm_control', []),
                                            ('robot_sm', ['test/test_quoting.py'])])
def test_each_package_collects_its_tests_beside_a_ros_install(
        tmp_path: pathlib.Path, package: str, tests: list) -> None:
    (tmp_path / 'fake_launch_testing.py').write_text(LAUNCH_TESTING_PLUGIN)
    info = tmp_path / 'launch_testing-1.0.dist-info'
    info.mkdir()
    (info / 'METADATA').write_text('Metadata-Version: 2.1\nName: launch_testing\nVersion: 1.0\n')
    (info / 'entry_points.txt').write_text('[pytest11]\nlaunch_testing = fake_launch_testing\n')
    env = {**os.environ, 'PYTHONPATH': os.pathsep.join(
        [str(tmp_path), *filter(None, [os.environ.get('PYTHONPATH')])])}
    command = [sys.executable, '-m', 'pytest', '--collect-only', '-q', '-p', 'no:cacheprovider',
               *tests]
    # Where the plugin is loaded, pytest stops before collecting anything.
    loaded = subprocess.run([*command, '-c', os.devnull, '--rootdir', str(tmp_path)],
                            cwd=REPOSITORY / package, capture_output=True, text=True,
                            timeout=120, env=env)
    assert 'PluginValidationError' in loaded.stdout + loaded.stderr, loaded.stdout
    # The package's own pytest.ini leaves it out: its tests are collected.
    result = subprocess.run(command, cwd=REPOSITORY / package, capture_output=True, text=True,
                            timeout=120, env=env)
    assert result.returncode == 0, result.stdout + result.stderr
    assert ' collected' in result.stdout or 'tests collected' in result.stdout, result.stdout
