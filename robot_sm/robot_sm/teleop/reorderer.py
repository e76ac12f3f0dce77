"""
Tensor reorderer: flatten named elements of several inputs into one action vector.

``input_config`` names the elements of each input (``{'ee_pose': ['pos_x', ...], ...}``) and
``input_types`` says how each input arrives: ``'scalar'`` (the default; one number, or a sequence
of numbers for several elements) or ``'array'`` (one array of ``len(elements)`` values). Output
element ``j`` copies the first input (in declaration order) whose element list contains
``output_order[j]``, at that name's first position; input elements not named in ``output_order``
are dropped (the 5-D SO-101 action drops the quaternion of the 7-D pose). Names found in no input
stay 0.0 and are logged once at construction. Every input is required; the output is a fresh
float32 array each tick.
"""

import logging
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

import numpy as np

from robot_sm.teleop.execution import ComputeContext
from robot_sm.teleop.graph import Port, Retargeter, Value, Values

INPUT_TYPES = ('scalar', 'array')

_log = logging.getLogger(__name__)


class TensorReorderer(Retargeter):
    """Copies named input elements into an output vector in ``output_order``."""

    OUTPUT = 'output'

    def __init__(
        self,
        input_config: Mapping[str, Sequence[str]],
        output_order: Sequence[str],
        name: str,
        input_types: Optional[Mapping[str, str]] = None,
    ) -> None:
        if not input_config:
            raise ValueError(f'{name}: input_config needs at least one input')
        if not output_order:
            raise ValueError(f'{name}: output_order needs at least one element')
        types = dict(input_types or {})
        unknown = sorted(set(types) - set(input_config))
        if unknown:
            raise ValueError(f"{name}: input_types names unknown input(s) {', '.join(unknown)}")
        for input_name, kind in types.items():
            if kind not in INPUT_TYPES:
                raise ValueError(f"{name}: input_types['{input_name}'] must be one of "
                                 f"{', '.join(INPUT_TYPES)}, got {kind!r}")
        super().__init__(name, [Port(key) for key in input_config], [Port(self.OUTPUT)])
        self.input_types: Dict[str, str] = {key: types.get(key, 'scalar') for key in input_config}
        self._sizes = {key: len(elements) for key, elements in input_config.items()}
        self._width = len(output_order)
        self._mapping: List[Tuple[int, str, int]] = []
        self.unmapped: List[str] = []
        for target, element in enumerate(output_order):
            for input_name, elements in input_config.items():
                if element in elements:
                    self._mapping.append((target, input_name, list(elements).index(element)))
                    break
            else:
                self.unmapped.append(element)
        if self.unmapped:
            _log.warning('%s: output element(s) %s are in no input and stay 0.0', name,
                         ', '.join(self.unmapped))

    def compute(self, inputs: Mapping[str, Value], context: ComputeContext) -> Values:
        """
        Return the flattened vector.

        :raises ValueError: naming the node, input, source and target index when an input does
            not have the element it should.
        """
        output = np.zeros(self._width, dtype=np.float32)
        flattened: Dict[str, Any] = {}
        for target, input_name, source in self._mapping:
            value = inputs[input_name]
            try:
                flat = flattened.get(input_name)
                if flat is None:
                    flat = flattened[input_name] = self._flatten(input_name, value)
                output[target] = float(flat[source])
            except (IndexError, TypeError, ValueError) as error:
                raise ValueError(f"Mapping error in {self.name}: input '{input_name}'[{source}] "
                                 f'-> output[{target}]: {error}') from error
        return {self.OUTPUT: output}

    def _flatten(self, input_name: str, value: Value) -> Any:
        """Return the elements of one input as a flat sequence (once per input and tick)."""
        if self.input_types[input_name] == 'scalar' and self._sizes[input_name] == 1 \
                and np.ndim(value) == 0:
            return (value,)
        return np.asarray(value, dtype=float).reshape(-1)
