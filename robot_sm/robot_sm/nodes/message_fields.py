"""ROS messages by their names, filled from plain values and turned back into them (for JSON)."""

import importlib
from typing import Any, Mapping


def message_type(name: str) -> Any:
    """Return the message, service or action class named like ``std_srvs/srv/SetBool``."""
    package, kind, type_name = name.split('/')
    return getattr(importlib.import_module(f'{package}.{kind}'), type_name)


def fill(message: Any, fields: Mapping[str, Any]) -> Any:
    """Set ``fields`` on ``message`` (nested mappings fill nested messages); return it."""
    for key, value in fields.items():
        if isinstance(value, Mapping):
            fill(getattr(message, key), value)
        else:
            setattr(message, key, value)
    return message


def to_plain(value: Any) -> Any:
    """Return a message (or field value) as JSON-ready dicts, lists and scalars."""
    if hasattr(value, 'get_fields_and_field_types'):
        return {field: to_plain(getattr(value, field))
                for field in value.get_fields_and_field_types()}
    if isinstance(value, (bytes, bytearray)):
        return list(value)
    if hasattr(value, 'tolist'):
        return value.tolist()
    if isinstance(value, (list, tuple)):
        return [to_plain(item) for item in value]
    return value
