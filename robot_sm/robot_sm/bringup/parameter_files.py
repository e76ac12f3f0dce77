"""
ROS 2 parameter files read as rcl reads them, and the files the package ships.

``robot-sm up`` gives each node what the files set for it (:func:`parameters_for`), matching
node names as ROS does (``/**/node`` applies in any namespace, a later entry wins).
"""

import pathlib
import re
from typing import Any, Dict, Iterable, List, Mapping, Optional

import yaml


class ParameterFileError(ValueError):
    """A parameter file that cannot be read; the message is one line naming it and the problem."""


#: A parameter file as read: parameters by node name pattern (``/**``, ``/**/node``, ``/node``),
#: in the order of the file.
ParameterFile = Dict[str, Dict[str, Any]]


class _ParameterFileLoader(yaml.SafeLoader):
    """YAML as rcl reads parameter files: a tagged sequence is a list, whatever its tag."""


#: launch_ros writes a list given in a dictionary of parameters as ``!!python/tuple``.
_ParameterFileLoader.add_constructor(
    'tag:yaml.org,2002:python/tuple',
    lambda loader, node: loader.construct_sequence(node))  # type: ignore[arg-type]


def load_parameter_file(path: pathlib.Path) -> ParameterFile:
    """
    Read a ROS 2 parameter file: ``{node_name: {ros__parameters: {...}}}``.

    Returns parameters by node name pattern, with the leading ``/`` that ROS adds to names
    without one. Nested mappings are flattened to dotted names as ROS does.

    :raises ParameterFileError: if the file cannot be read, is not YAML, or is not shaped like a
        ROS parameter file.
    """
    try:
        content = yaml.load(pathlib.Path(path).read_text(), _ParameterFileLoader) or {}
    except OSError as error:
        raise ParameterFileError(f'{path}: {error.strerror or error}') from error
    except yaml.YAMLError as error:
        mark = getattr(error, 'problem_mark', None)
        where = f'line {mark.line + 1}: ' if mark is not None else ''
        problem = getattr(error, 'problem', None) or str(error)
        raise ParameterFileError(f"{path}: {where}{' '.join(problem.split())}") from error
    if not isinstance(content, dict):
        raise ParameterFileError(f'{path}: expected a mapping of node names')
    result: ParameterFile = {}
    for node, entry in content.items():
        if not isinstance(entry, dict) or not isinstance(entry.get('ros__parameters'), dict):
            raise ParameterFileError(f'{path}: {node} has no ros__parameters mapping')
        name = str(node) if str(node).startswith('/') else f'/{node}'
        result.setdefault(name, {}).update(_flatten(path, entry['ros__parameters']))
    return result


def _flatten(path: pathlib.Path, values: Mapping[str, Any], prefix: str = '') -> Dict[str, Any]:
    flat: Dict[str, Any] = {}
    for key, value in values.items():
        name = f'{prefix}{key}'
        if isinstance(value, dict):
            flat.update(_flatten(path, value, f'{name}.'))
        elif not _is_parameter_value(value):
            raise ParameterFileError(f'{path}: {name}: {value!r} is not a ROS parameter value '
                                     '(a bool, integer, float or string, or a list of one kind)')
        else:
            flat[name] = value
    return flat


def _is_parameter_value(value: Any) -> bool:
    scalar = (bool, int, float, str)
    if isinstance(value, scalar):
        return True
    if not isinstance(value, list):
        return False
    kinds = {type(v) for v in value}
    return kinds <= set(scalar) and len(kinds) <= 1


def matches(pattern: str, fully_qualified_name: str) -> bool:
    """
    Return whether a parameter file's node name applies to a node, as ROS decides it.

    ``*`` stands for one name token, ``**`` for any number of them: ``/**`` applies to every
    node, ``/**/mux`` to a node called ``mux`` in any namespace, ``/mux`` only to ``/mux``.
    """
    expression = re.escape(pattern).replace(r'/\*\*', r'(/\w+)*').replace(r'/\*', r'(/\w+)')
    return re.fullmatch(expression, fully_qualified_name) is not None


def parameters_for(node_name: str, files: Iterable[ParameterFile],
                   overrides: Optional[Mapping[str, Any]] = None,
                   namespace: str = '') -> Dict[str, Any]:
    """
    Merge what ``files`` set for the node, in order, then ``overrides``.

    Within and across files a later entry that applies to the node wins over an earlier one.
    """
    fully_qualified = f"/{namespace.strip('/')}/{node_name}".replace('//', '/')
    merged: Dict[str, Any] = {}
    for content in files:
        for pattern, values in content.items():
            if matches(pattern, fully_qualified):
                merged.update(values)
    merged.update(overrides or {})
    return merged


def shipped_parameter_files(sim: bool, remote: bool = False) -> List[pathlib.Path]:
    """
    Return ``config/robot_sm.yaml``, then ``config/sim.yaml`` for the simulation.

    ``config/remote.yaml`` (the operator station on another computer) comes last.
    """
    from robot_sm.resources import share_directory
    config = share_directory() / 'config'
    return ([config / 'robot_sm.yaml'] + ([config / 'sim.yaml'] if sim else [])
            + ([config / 'remote.yaml'] if remote else []))
