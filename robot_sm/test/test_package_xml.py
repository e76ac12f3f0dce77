"""The package manifests are valid format-3 package.xml files that colcon and rosdep accept."""

import ast
import pathlib
import shutil
import subprocess
import sys
from typing import Dict, Set

from catkin_pkg.package import parse_package
import pytest

REPOSITORY = pathlib.Path(__file__).resolve().parents[2]
#: The Python packages of the repository (each a folder with package.xml and a module of its name).
PYTHON_PACKAGES = ('robot_sm', 'robot_sm_control')
MANIFESTS = [REPOSITORY / name / 'package.xml'
             for name in ('robot_sm', 'robot_sm_control', 'robot_sm_msgs')]


@pytest.mark.linter
@pytest.mark.xmllint
@pytest.mark.parametrize('manifest', MANIFESTS, ids=lambda path: path.parent.name)
def test_manifest_parses_as_format_3(manifest: pathlib.Path) -> None:
    package = parse_package(str(manifest))
    package.validate()
    assert package.package_format == 3
    assert package.name == manifest.parent.name


@pytest.mark.linter
@pytest.mark.xmllint
@pytest.mark.skipif(shutil.which('xmllint') is None,
                    reason='xmllint (libxml2-utils) is not installed')
@pytest.mark.parametrize('manifest', MANIFESTS, ids=lambda path: path.parent.name)
def test_xmllint(manifest: pathlib.Path) -> None:
    result = subprocess.run(['xmllint', '--noout', str(manifest)], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr


#: rosdep keys of the Python libraries robot_sm imports (a ROS package's module is its name),
#: as rosdistro's rosdep/python.yaml and jazzy/distribution.yaml name them.
PYTHON_KEYS = {'numpy': 'python3-numpy', 'scipy': 'python3-scipy', 'yaml': 'python3-yaml',
               'PIL': 'python3-pil', 'argcomplete': 'python3-argcomplete',
               'matplotlib': 'python3-matplotlib', 'pinocchio': 'pinocchio',
               'aiohttp': 'python3-aiohttp',
               # rosdistro's pip key; it installs mcap, which it depends on.
               'mcap': 'mcap-ros2-support', 'mcap_ros2': 'mcap-ros2-support',
               # The Python tf2_ros is the package tf2_ros_py; tf2_ros is the C++ library.
               'tf2_ros': 'tf2_ros_py'}
#: Imported only where the ROS package is missing (pip environments), or only by what tests
#: and the demo drive (selenium: a browser for the web console; a test_depend), never on a robot.
NOT_ON_A_ROBOT = {'PySide6', 'selenium'}


def imported_modules(package: pathlib.Path) -> Dict[str, Set[str]]:
    """Return the top-level modules imported anywhere in the package (also inside functions)."""
    modules: Dict[str, Set[str]] = {}
    files = list((package / package.name).rglob('*.py')) + list((package / 'launch').glob('*.py'))
    for path in files:
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            else:
                continue
            for name in names:
                top = name.partition('.')[0]
                if top not in sys.stdlib_module_names and top != package.name:
                    modules.setdefault(top, set()).add(str(path.relative_to(package)))
    return modules


@pytest.mark.parametrize('name', PYTHON_PACKAGES)
def test_every_imported_package_is_an_exec_depend(name: str) -> None:
    manifest = parse_package(str(REPOSITORY / name / 'package.xml'))
    depends = {d.name for d in manifest.exec_depends}
    missing = {PYTHON_KEYS.get(module, module): sorted(files)
               for module, files in imported_modules(REPOSITORY / name).items()
               if module not in NOT_ON_A_ROBOT and PYTHON_KEYS.get(module, module) not in depends}
    assert not missing, f'imported but not an exec_depend of package.xml: {missing}'
