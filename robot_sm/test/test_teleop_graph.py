"""The retargeting graph: connections, once-per-tick evaluation, absent values, events."""

from typing import Mapping

import pytest

from robot_sm.teleop.clutch import ClutchRetargeter
from robot_sm.teleop.controller import ControllerSample
from robot_sm.teleop.execution import ComputeContext, ExecutionEvents, ExecutionState, one_hot
from robot_sm.teleop.graph import controllers_source, OutputCombiner, Port, Retargeter, Source
from robot_sm.teleop.graph import Value, ValueInput, Values
from robot_sm.teleop.roll import RollRetargeter
from robot_sm.teleop.session import TeleopSession

CONTEXT = ComputeContext(0.0)


class Adder(Retargeter):
    """Adds its inputs (absent counts as 0) and counts how often it computes."""

    def __init__(self, name: str, optional_output: bool = False) -> None:
        super().__init__(name, [Port('a'), Port('b', optional=True)],
                         [Port('sum', optional_output)])
        self.calls = 0

    def compute(self, inputs: Mapping[str, Value], context: ComputeContext) -> Values:
        self.calls += 1
        return {'sum': inputs['a'] + (inputs['b'] or 0)}


def numbers() -> Source:
    return Source('numbers', [Port('x'), Port('y')])


def test_connect_validates_the_wiring() -> None:
    source = numbers()
    with pytest.raises(ValueError, match='no input'):
        Adder('add').connect({'a': source.output('x'), 'c': source.output('y')})
    with pytest.raises(ValueError, match='required input'):
        Adder('add').connect({'b': source.output('x')})
    with pytest.raises(TypeError, match='OutputSelector'):
        Adder('add').connect({'a': 'x'})  # type: ignore[dict-item]
    optional = ValueInput('maybe')
    with pytest.raises(ValueError, match='Cannot connect optional output'):
        Adder('add').connect({'a': optional.output('value')})
    # required → optional is fine, and an optional input may be left out.
    Adder('add').connect({'a': source.output('x'), 'b': source.output('y')})
    Adder('add').connect({'a': source.output('x')})
    adder = Adder('once')
    adder.connect({'a': source.output('x')})
    with pytest.raises(ValueError, match='already connected'):
        adder.connect({'a': source.output('x')})


def test_a_shared_node_computes_once_per_tick_and_outputs_come_through() -> None:
    source = numbers()
    shared = Adder('shared')
    top = shared.connect({'a': source.output('x'), 'b': source.output('y')})
    left = Adder('left').connect({'a': top.output('sum')})
    right = Adder('right').connect({'a': top.output('sum'), 'b': source.output('x')})
    diamond = Adder('join').connect({'a': left.output('sum'), 'b': right.output('sum')})
    graph = OutputCombiner({'total': diamond.output('sum'), 'shared': top.output('sum')})
    assert graph.execute({'numbers': {'x': 1, 'y': 2}}, CONTEXT) == {'total': 7, 'shared': 3}
    assert shared.calls == 1
    graph.execute({'numbers': {'x': 1, 'y': 2}}, CONTEXT)
    assert shared.calls == 2
    assert graph.sources == (source,)


def test_an_output_combiner_is_itself_a_source_of_further_nodes() -> None:
    source = numbers()
    first = OutputCombiner({'s': Adder('a').connect({'a': source.output('x')}).output('sum')})
    second = OutputCombiner({'t': Adder('b').connect({'a': first.output('s'),
                                                      'b': source.output('y')}).output('sum')})
    assert second.execute({'numbers': {'x': 4, 'y': 5}}, CONTEXT) == {'t': 9}


def test_output_combiner_construction_errors() -> None:
    with pytest.raises(ValueError, match='at least one output'):
        OutputCombiner({})
    with pytest.raises(TypeError, match='Expected OutputSelector'):
        OutputCombiner({'x': 3})  # type: ignore[dict-item]
    with pytest.raises(ValueError, match='not found.*Available outputs: x, y'):
        OutputCombiner({'z': numbers().output('z')})


def test_every_source_value_must_be_supplied_absent_allowed_only_where_optional() -> None:
    value = ValueInput('measured')
    passthrough = OutputCombiner({'v': value.output('value')})
    assert passthrough.execute({'measured': {'value': None}}, CONTEXT) == {'v': None}
    assert passthrough.execute({'measured': {'value': 3.5}}, CONTEXT) == {'v': 3.5}
    with pytest.raises(ValueError, match="'measured' not found"):
        passthrough.execute({}, CONTEXT)
    with pytest.raises(ValueError, match='measured.value'):
        passthrough.execute({'measured': {}}, CONTEXT)
    required = OutputCombiner({'x': numbers().output('x')})
    with pytest.raises(ValueError, match='required output'):
        required.execute({'numbers': {'x': None, 'y': 1}}, CONTEXT)


def test_absent_values_propagate_through_optional_ports() -> None:
    controllers = controllers_source()
    roll = RollRetargeter('roll').connect({'controller': controllers.output('right')})
    graph = OutputCombiner({'roll': roll.output('roll_command')})
    out = graph.execute({'controllers': {'left': None, 'right': None}}, CONTEXT)
    assert out == {'roll': 0.0}


def test_a_context_without_events_is_unknown_and_never_engages() -> None:
    controllers = controllers_source()
    clutch = ClutchRetargeter('c', (0.1, 0.2, 0.3))
    node = clutch.connect({'controller': controllers.output('right')})
    graph = OutputCombiner({'pose': node.output('ee_pose')})
    assert CONTEXT.events.state is ExecutionState.UNKNOWN
    sample = ControllerSample(grip_is_valid=True, squeeze_value=1.0)
    graph.execute({'controllers': {'left': None, 'right': sample}}, CONTEXT)
    assert not clutch.is_engaged


class FixedControl(Retargeter):
    """A control pipeline stand-in with a fixed state."""

    def __init__(self, state: ExecutionState, reset: bool) -> None:
        super().__init__('fixed', [], [Port('teleop_state'), Port('reset_event')])
        self.outputs_value = {'teleop_state': one_hot(state), 'reset_event': reset}

    def compute(self, inputs: Mapping[str, Value], context: ComputeContext) -> Values:
        return dict(self.outputs_value)


def test_session_events_caller_beats_control_pipeline_beats_running_default() -> None:
    source = numbers()
    pipeline = OutputCombiner({'x': source.output('x')})
    control_node = FixedControl(ExecutionState.PAUSED, True).connect({})
    control = OutputCombiner({'teleop_state': control_node.output('teleop_state'),
                              'reset_event': control_node.output('reset_event')})
    inputs = {'numbers': {'x': 1, 'y': 2}}

    session = TeleopSession(pipeline)
    session.step(inputs, 1.0)
    assert session.last_context == ComputeContext(1.0, ExecutionEvents(False,
                                                                       ExecutionState.RUNNING))
    session = TeleopSession(pipeline, control)
    session.step(inputs, 2.0)
    assert session.last_context is not None
    assert session.last_context.events == ExecutionEvents(True, ExecutionState.PAUSED)
    explicit = ExecutionEvents(False, ExecutionState.STOPPED)
    session.step(inputs, 3.0, events=explicit)
    assert session.last_context.events == explicit
