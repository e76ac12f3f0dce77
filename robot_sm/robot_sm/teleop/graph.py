"""
A small retargeting graph: sources, retargeters with declared ports, and an output combiner.

Values flow along connections from a :class:`Source` (fed from outside every tick) through
:class:`Retargeter` nodes to an :class:`OutputCombiner`, which evaluates the graph it reaches:
every node exactly once per tick (a node feeding several consumers is not recomputed), upstream
first. ``None`` on a port means *absent* (a controller that is not tracked, a measurement never
received); only optional ports may carry it, and an optional output may not feed a required
input. Retargeters keep their cross-tick state in their own attributes.
"""

from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

from robot_sm.teleop.controller import HANDS
from robot_sm.teleop.execution import ComputeContext

#: A value on a port; ``None`` is absent.
Value = Any
#: Values of a node's ports by port name.
Values = Dict[str, Value]
#: Values fed into the sources of a graph: ``{source name: {output name: value}}``.
ExternalInputs = Mapping[str, Mapping[str, Value]]


@dataclass(frozen=True)
class Port:
    """A named input or output of a graph node; only an optional port may be absent."""

    name: str
    optional: bool = False


def _port_table(ports: Sequence[Port], owner: str, kind: str) -> Dict[str, Port]:
    table: Dict[str, Port] = {}
    for port in ports:
        if port.name in table:
            raise ValueError(f"{owner}: duplicate {kind} '{port.name}'")
        table[port.name] = port
    return table


class Module(ABC):
    """A node of the graph: named outputs, evaluated once per tick after its upstream nodes."""

    def __init__(self, name: str, outputs: Sequence[Port]) -> None:
        if not name:
            raise ValueError('a graph node needs a non-empty name')
        self.name = name
        self.outputs: Dict[str, Port] = _port_table(outputs, name, 'output')

    def output(self, name: str) -> 'OutputSelector':
        """Select output ``name`` of this node, to connect it to an input."""
        if name not in self.outputs:
            raise ValueError(f"output '{name}' not found in '{self.name}'. "
                             f"Available outputs: {', '.join(self.outputs)}")
        return OutputSelector(self, name)

    @property
    @abstractmethod
    def upstream(self) -> Tuple['Module', ...]:
        """Return the nodes whose outputs this node reads."""

    @abstractmethod
    def evaluate(self, cache: Mapping['Module', Values], external: ExternalInputs,
                 context: ComputeContext) -> Values:
        """Compute this tick's outputs from the upstream outputs in ``cache``."""


@dataclass(frozen=True, eq=False)
class OutputSelector:
    """One output of one graph node: the upstream end of a connection."""

    module: Module
    name: str

    @property
    def port(self) -> Port:
        """Return the selected output port."""
        return self.module.outputs[self.name]

    def read(self, cache: Mapping[Module, Values]) -> Value:
        """Return this tick's value of the selected output."""
        return cache[self.module][self.name]


class Source(Module):
    """A leaf whose output values are supplied from outside on every tick."""

    @property
    def upstream(self) -> Tuple[Module, ...]:
        """Return no node: a source reads none."""
        return ()

    def evaluate(self, cache: Mapping[Module, Values], external: ExternalInputs,
                 context: ComputeContext) -> Values:
        """Return the supplied values; every output must be supplied, absent as ``None``."""
        supplied = external.get(self.name)
        if supplied is None:
            raise ValueError(f"Input '{self.name}' not found in the supplied inputs")
        values: Values = {}
        for port in self.outputs.values():
            if port.name not in supplied:
                raise ValueError(f"Input '{self.name}.{port.name}' not supplied "
                                 '(send None for an absent value)')
            values[port.name] = supplied[port.name]
        return values


class ValueInput(Source):
    """A source with one output, ``value``: an externally fed value such as a measured pose."""

    VALUE = 'value'

    def __init__(self, name: str, optional: bool = True) -> None:
        super().__init__(name, [Port(self.VALUE, optional)])


def controllers_source(name: str = 'controllers') -> Source:
    """Return the source of both controllers: optional outputs ``left`` and ``right``."""
    return Source(name, [Port(hand, optional=True) for hand in HANDS])


class Retargeter(ABC):
    """
    A computation with declared input and output ports, keeping its own state across ticks.

    Subclasses implement :meth:`compute`; :meth:`connect` wires the inputs and returns the graph
    node. Unconnected optional inputs are absent every tick.
    """

    def __init__(self, name: str, inputs: Sequence[Port], outputs: Sequence[Port]) -> None:
        if not name:
            raise ValueError('a retargeter needs a non-empty name')
        self.name = name
        self.inputs: Dict[str, Port] = _port_table(inputs, name, 'input')
        self.outputs: Dict[str, Port] = _port_table(outputs, name, 'output')
        self._connected = False

    @abstractmethod
    def compute(self, inputs: Mapping[str, Value], context: ComputeContext) -> Values:
        """Return this tick's outputs, one value per declared output port."""

    def connect(self, wiring: Mapping[str, OutputSelector]) -> 'ConnectedRetargeter':
        """
        Wire inputs to upstream outputs and return the graph node.

        :raises ValueError: on an unknown input, a missing required input, an optional output
            feeding a required input, or a retargeter connected twice.
        :raises TypeError: if a wiring value is not an :class:`OutputSelector`.
        """
        if self._connected:
            raise ValueError(f"'{self.name}' is already connected; create another instance")
        extra = sorted(set(wiring) - set(self.inputs))
        if extra:
            raise ValueError(f"'{self.name}' has no input(s) {', '.join(extra)}; "
                             f"inputs are {', '.join(self.inputs)}")
        missing = [p.name for p in self.inputs.values() if not p.optional and p.name not in wiring]
        if missing:
            raise ValueError(
                f"'{self.name}': required input(s) {', '.join(missing)} not connected")
        for input_name, selector in wiring.items():
            if not isinstance(selector, OutputSelector):
                raise TypeError(f"'{self.name}.{input_name}': expected OutputSelector, "
                                f'got {type(selector).__name__}')
            if selector.port.optional and not self.inputs[input_name].optional:
                raise ValueError(
                    f"Cannot connect optional output '{selector.module.name}.{selector.name}' "
                    f"to required input '{self.name}.{input_name}'")
        self._connected = True
        return ConnectedRetargeter(self, wiring)


class ConnectedRetargeter(Module):
    """A retargeter placed in a graph, with its inputs wired."""

    def __init__(self, retargeter: Retargeter, wiring: Mapping[str, OutputSelector]) -> None:
        super().__init__(retargeter.name, list(retargeter.outputs.values()))
        self.retargeter = retargeter
        self._wiring = dict(wiring)
        self._unwired = [name for name in retargeter.inputs if name not in wiring]
        upstream: List[Module] = []
        for selector in self._wiring.values():
            if selector.module not in upstream:
                upstream.append(selector.module)
        self._upstream = tuple(upstream)

    @property
    def upstream(self) -> Tuple[Module, ...]:
        """Return the nodes wired to the inputs."""
        return self._upstream

    def evaluate(self, cache: Mapping[Module, Values], external: ExternalInputs,
                 context: ComputeContext) -> Values:
        """Gather the wired inputs (unwired optional ones absent) and compute."""
        inputs: Values = {name: selector.read(cache) for name, selector in self._wiring.items()}
        for name in self._unwired:
            inputs[name] = None
        return self.retargeter.compute(inputs, context)


class OutputCombiner(Module):
    """
    The outputs of a graph under names of your choice; evaluates everything it reaches.

    It is itself a node, so a combined graph can feed further retargeters.
    """

    def __init__(self, outputs: Mapping[str, OutputSelector], name: str = 'outputs') -> None:
        if not outputs:
            raise ValueError('OutputCombiner needs at least one output')
        for key, selector in outputs.items():
            if not isinstance(selector, OutputSelector):
                raise TypeError(f"output '{key}': Expected OutputSelector, "
                                f'got {type(selector).__name__}')
        super().__init__(name, [Port(key, s.port.optional) for key, s in outputs.items()])
        self._selectors = dict(outputs)
        self._upstream = tuple(dict.fromkeys(s.module for s in outputs.values()))
        self._order = _evaluation_order(self._upstream)
        self.sources: Tuple[Source, ...] = tuple(m for m in self._order if isinstance(m, Source))

    @property
    def upstream(self) -> Tuple[Module, ...]:
        """Return the nodes the combined outputs come from."""
        return self._upstream

    def evaluate(self, cache: Mapping[Module, Values], external: ExternalInputs,
                 context: ComputeContext) -> Values:
        """Return the selected upstream values under their new names (not copies)."""
        return {key: selector.read(cache) for key, selector in self._selectors.items()}

    def execute(self, external: ExternalInputs, context: ComputeContext) -> Values:
        """
        Evaluate the graph for one tick and return the combined outputs.

        :raises ValueError: if a source's value is not supplied, or a node leaves a declared
            output unset or sets a required one to ``None``.
        """
        cache: Dict[Module, Values] = {}
        for module in self._order:
            values = module.evaluate(cache, external, context)
            for port in module.outputs.values():
                if port.name not in values:
                    raise ValueError(f"'{module.name}' did not set output '{port.name}'")
                if values[port.name] is None and not port.optional:
                    raise ValueError(f"'{module.name}' left required output '{port.name}' absent")
            cache[module] = values
        return self.evaluate(cache, external, context)


def _evaluation_order(roots: Sequence[Module]) -> List[Module]:
    """Return every node reachable from ``roots``, each once, upstream before downstream."""
    order: List[Module] = []
    state: Dict[Module, str] = {}

    def visit(module: Module) -> None:
        mark: Optional[str] = state.get(module)
        if mark == 'done':
            return
        if mark == 'visiting':
            raise ValueError(f"the graph has a cycle through '{module.name}'")
        state[module] = 'visiting'
        for upstream in module.upstream:
            visit(upstream)
        state[module] = 'done'
        order.append(module)

    for root in roots:
        visit(root)
    return order
