"""
The per-node reference pages, ``docs/<node>.md``: their tables are read from the running nodes.

``python -m robot_sm.testing.reference_pages`` (``make docs``) starts each node of the suite in
this process, reads what it declared, and rewrites the generated tables of its page: the topics it
publishes and subscribes to (type and QoS), its service servers and clients, and its parameters
(default, constraints and description, from the descriptors its parameter specs give). Everything
else on a page is written by hand and kept, and so is the last column (notes) of the topic and
service tables, matched by name. ``--check`` changes nothing and exits 1 naming each page that is
out of date; ``test/test_reference_pages.py`` runs it.

Each node is started twice, in a namespace of its own and with ``ROS_HOME`` in a temporary
folder: once with its defaults (for the parameters), and once with the options that create its
optional endpoints (for the topics and services; a parameter that names a topic shows as
``<parameter>``). Only what a node creates when it starts is listed; ``/tf`` and ``/tf_static``
are left out, as they exist only where tf2_ros is installed (each page says when a node uses
them).
"""

import argparse
import contextlib
import importlib
import os
import pathlib
import re
import sys
import tempfile
from typing import Any, Dict, Iterator, List, Mapping, NamedTuple, Optional, Sequence, Tuple

import rclpy
from rclpy.context import Context
from rclpy.node import Node
from rclpy.qos import DurabilityPolicy, HistoryPolicy, QoSProfile, ReliabilityPolicy

#: The command that regenerates the pages, named when one is out of date.
COMMAND = 'make docs'
REPOSITORY = pathlib.Path(__file__).resolve().parents[3]
NAMESPACE = 'reference'


class NodePage(NamedTuple):
    """A node documented on ``docs/<name>.md``, and what its optional endpoints need."""

    name: str
    module: str
    node_class: str
    #: Parameters that create the optional endpoints; a string value is shown as ``<name>``.
    options: Mapping[str, Any] = {}


NODE_PAGES = (
    NodePage('robot_control_mux', 'robot_sm.nodes.robot_control_mux', 'RobotControlMux',
             {'joystick_used': True, 'heartbeat_topic': 'placeholder_heartbeat_topic',
              'locks.pause.topic': 'placeholder_lock_topic', 'locks.pause.timeout': 0.0,
              'locks.pause.priority': 50}),
    NodePage('service_provider', 'robot_sm.nodes.service_provider', 'ServiceProvider',
             {'pose_source': 'topic',
              'navigation_reverse_service': 'placeholder_navigation_reverse_service'}),
    NodePage('state_interface', 'robot_sm.nodes.state_interface', 'StateInterface',
             {'boot_up_service': 'placeholder_boot_up_service'}),
    NodePage('base_controller', 'robot_sm.nodes.base_controller', 'BaseControllerNode'),
    NodePage('teleop_retargeting', 'robot_sm.nodes.teleop_retargeting', 'TeleopRetargeting',
             {'base_teleop': True}),
    NodePage('robot_sim', 'robot_sm.nodes.robot_sim', 'RobotSim',
             {'publish_clock': True, 'arm_joint_names': ['shoulder_pan', 'shoulder_lift',
                                                         'elbow_flex', 'wrist_flex',
                                                         'wrist_roll', 'gripper']}),
    NodePage('xr_replay', 'robot_sm.nodes.xr_replay', 'XrReplay'),
    NodePage('topic_recorder', 'robot_sm.nodes.topic_recorder', 'TopicRecorder'),
    NodePage('incident_recorder', 'robot_sm.nodes.incident_recorder', 'IncidentRecorder'),
)

#: Endpoints every rclpy node has, and the TF topics that exist only with tf2_ros.
LEFT_OUT = {'/rosout', '/parameter_events', '/tf', '/tf_static'}
#: Endpoints that exist only with the interactive_markers library (the pages' prose names them).
LEFT_OUT_UNDER = ('robot_sm/waypoint_interactive_markers/',)
#: Parameters every rclpy node has.
RCLPY_PARAMETERS = {'use_sim_time', 'start_type_description_service'}
PARAMETER_SERVICES = {'describe_parameters', 'get_parameters', 'get_parameter_types',
                      'list_parameters', 'set_parameters', 'set_parameters_atomically',
                      'get_type_description'}


class Table(NamedTuple):
    """A generated table: its header and its rows (cells as Markdown)."""

    name: str
    header: Tuple[str, ...]
    rows: List[Tuple[str, ...]]
    #: Whether the last column is written by hand (kept, matched by the first cell).
    notes: bool


def _type_name(interface: Any) -> str:
    """Return ``package/Name`` of a message or service class."""
    return f"{interface.__module__.split('.')[0]}/{interface.__name__}"


def _qos(profile: QoSProfile) -> str:
    reliability = ('best effort' if profile.reliability == ReliabilityPolicy.BEST_EFFORT
                   else 'reliable')
    durability = ('transient local' if profile.durability == DurabilityPolicy.TRANSIENT_LOCAL
                  else 'volatile')
    history = ('keep all' if profile.history == HistoryPolicy.KEEP_ALL
               else f'depth {profile.depth}')
    return f'{reliability}, {durability}, {history}'


def _shown(name: str, placeholders: Mapping[str, str]) -> str:
    """Return an endpoint's name as a page shows it: relative, a placeholder as ``<name>``."""
    prefix = f'/{NAMESPACE}/'
    name = name[len(prefix):] if name.startswith(prefix) else name
    return placeholders.get(name, name)


def _value(value: Any, home: str) -> str:
    if isinstance(value, str):
        value = value.replace(f'{home}/robot_sm/{NAMESPACE}/', '$ROS_HOME/robot_sm/<namespace>/')
        return f'`{value}`' if value else "`''`"
    if isinstance(value, bool):
        return f'`{str(value).lower()}`'
    if isinstance(value, float):
        return f'`{value:g}`' if abs(value) < 1e6 else f'`{value}`'
    if isinstance(value, (list, tuple)):
        return '`[' + ', '.join(str(v) for v in value) + ']`'
    return f'`{value}`'


@contextlib.contextmanager
def _started(page: NodePage, overrides: Mapping[str, Any]) -> Iterator[Node]:
    """Start the page's node in its own context with ``overrides``; destroy it afterwards."""
    from rclpy.parameter import Parameter
    node_class = getattr(importlib.import_module(page.module), page.node_class)
    context = Context()
    rclpy.init(context=context, args=['--ros-args', '--log-level', 'fatal'])
    node: Optional[Node] = None
    try:
        node = node_class(context=context, namespace=f'/{NAMESPACE}', parameter_overrides=[
            Parameter(name, value=value) for name, value in overrides.items()])
        yield node
    finally:
        if node is not None:
            node.destroy_node()
        rclpy.shutdown(context=context)


def parameters_table(node: Node, home: str) -> Table:
    """Return the parameters a started node declared, with their descriptors."""
    names = sorted(set(node._parameters) - RCLPY_PARAMETERS)  # noqa: SLF001 - no public list
    rows: List[Tuple[str, ...]] = []
    for descriptor in node.describe_parameters(names):
        name = descriptor.name
        constraints = descriptor.additional_constraints.replace('type: ', '')
        rows.append((f'`{name}`', _value(node.get_parameter(name).value, home), constraints,
                     descriptor.description.replace('|', '\\|')))
    return Table('parameters', ('parameter', 'default', 'type, bounds', 'meaning'), rows, False)


def endpoint_tables(node: Node, placeholders: Mapping[str, str]) -> Tuple[Table, Table]:
    """Return the topics and the services a started node created."""
    topics = set()
    for direction, endpoints in (('out', node.publishers), ('in', node.subscriptions)):
        for endpoint in endpoints:
            if endpoint.topic_name not in LEFT_OUT and \
                    not _shown(endpoint.topic_name, {}).startswith(LEFT_OUT_UNDER):
                topics.add((_shown(endpoint.topic_name, placeholders), direction,
                            _type_name(endpoint.msg_type), _qos(endpoint.qos_profile)))
    services = set()
    for role, service_ends in (('server', node.services), ('client', node.clients)):
        for end in service_ends:
            name = _shown(end.srv_name, placeholders)
            if name.rpartition('/')[2] not in PARAMETER_SERVICES and \
                    not name.startswith(LEFT_OUT_UNDER):
                services.add((name, role, _type_name(end.srv_type)))
    return (Table('topics', ('topic', 'direction', 'type', 'QoS', 'notes'),
                  [(f'`{t}`', d, f'`{k}`', q, '') for t, d, k, q in sorted(topics)], True),
            Table('services', ('service', 'role', 'type', 'notes'),
                  [(f'`{s}`', r, f'`{k}`', '') for s, r, k in sorted(services)], True))


def node_tables(page: NodePage, home: str) -> List[Table]:
    """Start the page's node (twice) and return its generated tables."""
    with _started(page, {}) as node:
        parameters = parameters_table(node, home)
    placeholders = {value: f'<{name}>' for name, value in page.options.items()
                    if isinstance(value, str) and value.startswith('placeholder_')}
    with _started(page, page.options) as node:
        topics, services = endpoint_tables(node, placeholders)
    return [topics, services, parameters]


def _begin(table: str) -> str:
    return f'<!-- {table}: generated by `{COMMAND}`; edits outside a notes column are lost -->'


def _end(table: str) -> str:
    return f'<!-- end of generated {table} -->'


def _kept_notes(text: str, table: str) -> Dict[str, str]:
    """Return the notes column of a generated table on a page, by the row's first cell."""
    match = re.search(re.escape(_begin(table)) + '(.*?)' + re.escape(_end(table)), text, re.S)
    notes = {}
    for line in (match.group(1).splitlines() if match else []):
        cells = [cell.strip() for cell in line.strip().strip('|').split('|')]
        if len(cells) > 1 and cells[0].startswith('`'):
            notes[cells[0] + cells[1]] = cells[-1]
    return notes


def _markdown(table: Table, notes: Mapping[str, str]) -> str:
    lines = ['| ' + ' | '.join(table.header) + ' |', '|' + '---|' * len(table.header)]
    for row in table.rows:
        if table.notes:
            row = (*row[:-1], notes.get(row[0] + row[1], ''))
        lines.append('| ' + ' | '.join(row) + ' |')
    if not table.rows:
        lines = ['(none)']
    return '\n'.join(lines)


def render(text: str, name: str, tables: Sequence[Table]) -> str:
    """Return the page ``text`` with its generated tables replaced (a new page if empty)."""
    if not text:
        text = f'# {name}\n' + ''.join(
            f'\n## {table.name.capitalize()}\n\n{_begin(table.name)}\n{_end(table.name)}\n'
            for table in tables)
    for table in tables:
        begin, end = _begin(table.name), _end(table.name)
        if begin not in text:
            text = text.rstrip('\n') + f'\n\n## {table.name.capitalize()}\n\n{begin}\n{end}\n'
        block = f'{begin}\n{_markdown(table, _kept_notes(text, table.name))}\n{end}'
        text = re.sub(re.escape(begin) + '.*?' + re.escape(end), lambda _: block, text,
                      flags=re.S)
    return text


def pages(docs: pathlib.Path) -> Dict[pathlib.Path, Tuple[str, str]]:
    """Return every page's path with its text now and as it should be."""
    result = {}
    with tempfile.TemporaryDirectory() as home:
        saved_home, saved_cwd = os.environ.get('ROS_HOME'), os.getcwd()
        os.environ['ROS_HOME'] = home
        os.chdir(home)  # files a node writes where it runs stay in the temporary folder
        try:
            for page in NODE_PAGES:
                path = docs / f'{page.name}.md'
                old = path.read_text() if path.exists() else ''
                result[path] = (old, render(old, page.name, node_tables(page, home)))
        finally:
            os.chdir(saved_cwd)
            if saved_home is None:
                del os.environ['ROS_HOME']
            else:
                os.environ['ROS_HOME'] = saved_home
    return result


def main(argv: Optional[List[str]] = None) -> int:
    """Rewrite the reference pages (or, with --check, name the ones out of date)."""
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0].strip())
    parser.add_argument('--check', action='store_true',
                        help='change nothing; exit 1 if a page is out of date')
    parser.add_argument('--docs', type=pathlib.Path, default=REPOSITORY / 'docs',
                        help='folder of the pages (default: docs/ of this repository)')
    args = parser.parse_args(argv)
    args.docs.mkdir(exist_ok=True)
    stale = []
    for path, (old, new) in pages(args.docs).items():
        if old == new:
            continue
        stale.append(path)
        if not args.check:
            path.write_text(new)
            print(f'wrote {path.relative_to(args.docs.parent)}')
    if args.check and stale:
        for path in stale:
            print(f'{path.relative_to(args.docs.parent)} is out of date: run `{COMMAND}` '
                  '(tools/with_ros_env.sh python -m robot_sm.testing.reference_pages)',
                  file=sys.stderr)
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main())
