"""
The ``ros2msg`` schema of a message type: its ``.msg`` text and that of every type it uses.

rosbag2 (and so ``ros2 bag play``, Foxglove and the ``mcap_ros2`` decoder) expects the message
definition of a topic's type followed by each type it depends on, once, recursively, every one
after a line of 80 ``=`` and a ``MSG: package/Type`` line. Field types are resolved as in ROS 2
``.msg`` files: primitive types stand alone, ``package/Type`` names another package's type, and a
bare ``Type`` one of the same package.
"""

import re
from typing import Callable, List, Set, Tuple

#: Reads the ``.msg`` text of ``(package, Type)``; raises ``LookupError`` for an unknown type.
MsgReader = Callable[[str, str], str]

PRIMITIVES = frozenset({
    'bool', 'byte', 'char', 'float32', 'float64', 'int8', 'uint8', 'int16', 'uint16', 'int32',
    'uint32', 'int64', 'uint64', 'string', 'wstring'})
SEPARATOR = '=' * 80


def split_type(type_name: str) -> Tuple[str, str]:
    """
    Return ``(package, Type)`` of ``package/msg/Type`` or ``package/Type``.

    :raises ValueError: for any other form.
    """
    parts = type_name.split('/')
    if len(parts) == 3 and parts[1] == 'msg' and all(parts):
        return parts[0], parts[2]
    if len(parts) == 2 and all(parts):
        return parts[0], parts[1]
    raise ValueError(f"'{type_name}' is not a message type name (package/msg/Type)")


def field_types(text: str, package: str) -> List[Tuple[str, str]]:
    """Return the non-primitive ``(package, Type)`` fields of a ``.msg`` text, in order."""
    found: List[Tuple[str, str]] = []
    for line in text.splitlines():
        line = line.split('#', 1)[0].strip()
        if not line:
            continue
        base = re.split(r'[\[<]', line.split()[0])[0]   # drop array and string bounds
        if base in PRIMITIVES:
            continue
        dependency = split_type(base) if '/' in base else (package, base)
        if dependency not in found:
            found.append(dependency)
    return found


def message_definition(type_name: str, read: MsgReader) -> str:
    """
    Return the ``ros2msg`` schema text of ``type_name`` (``package/msg/Type``).

    :raises LookupError: if the ``.msg`` file of the type or of one it uses cannot be read.
    :raises ValueError: for a malformed type name.
    """
    package, name = split_type(type_name)
    root = read(package, name)
    parts = [root]
    seen: Set[Tuple[str, str]] = {(package, name)}
    pending = field_types(root, package)
    while pending:
        dependency = pending.pop(0)
        if dependency in seen:
            continue
        seen.add(dependency)
        text = read(*dependency)
        parts.append(f'{SEPARATOR}\nMSG: {dependency[0]}/{dependency[1]}\n{text}')
        pending.extend(field_types(text, dependency[0]))
    return '\n'.join(part.rstrip('\n') for part in parts) + '\n'
