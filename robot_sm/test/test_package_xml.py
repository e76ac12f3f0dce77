"""The package manifests are valid format-3 package.xml files that colcon and rosdep accept."""

import pathlib
import shutil
import subprocess

from catkin_pkg.package import parse_package
import pytest

REPOSITORY = pathlib.Path(__file__).resolve().parents[2]
MANIFESTS = [REPOSITORY / name / 'package.xml' for name in ('robot_sm', 'robot_sm_msgs')]


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
