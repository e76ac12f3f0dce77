"""The reference pages, docs/<node>.md: their tables say what the running nodes declare."""

import pathlib
import shutil
import subprocess
import sys

from robot_sm.testing.reference_pages import NODE_PAGES

DOCS = pathlib.Path(__file__).resolve().parents[2] / 'docs'


def reference(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, '-m', 'robot_sm.testing.reference_pages', *args],
                          capture_output=True, text=True, timeout=120)


def test_every_page_is_up_to_date() -> None:
    result = reference('--check')
    assert result.returncode == 0, result.stderr + result.stdout


def test_a_stale_page_is_named_with_the_command_and_regenerating_keeps_the_notes(
        tmp_path: pathlib.Path) -> None:
    docs = tmp_path / 'docs'
    shutil.copytree(DOCS, docs)
    page = docs / 'robot_control_mux.md'
    text = page.read_text()
    # A parameter whose default the page gets wrong, and a topic with another QoS.
    stale = text.replace('| `autonomy_timeout` | `0.5` |', '| `autonomy_timeout` | `0.7` |')
    stale = stale.replace('| `cmd_vel` | out | `geometry_msgs/Twist` | reliable,',
                          '| `cmd_vel` | out | `geometry_msgs/Twist` | best effort,')
    assert stale != text
    page.write_text(stale)
    result = reference('--check', '--docs', str(docs))
    assert result.returncode == 1
    assert result.stderr.splitlines() == [
        'docs/robot_control_mux.md is out of date: run `make docs` '
        '(tools/with_ros_env.sh python -m robot_sm.testing.reference_pages)']
    assert page.read_text() == stale  # --check changes nothing
    assert reference('--docs', str(docs)).returncode == 0
    assert page.read_text() == text  # the notes written by hand came back with the rows
    # Regenerating writes the node pages only; pages of other topics are left as they are.
    assert {f'{p.name}.md' for p in NODE_PAGES} <= {path.name for path in docs.glob('*.md')}
    assert (docs / 'operator_station.md').read_text() == (DOCS / 'operator_station.md').read_text()
