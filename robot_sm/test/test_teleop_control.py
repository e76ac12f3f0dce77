"""Debounced bool selectors and the default teleop state machine (kill / toggle / reset / loss)."""

from typing import List, Optional, Sequence

import numpy as np
import pytest

from robot_sm.teleop.controller import ControllerInputIndex, ControllerSample
from robot_sm.teleop.execution import ComputeContext, ExecutionState, one_hot
from robot_sm.teleop.graph import controllers_source, OutputCombiner, Source
from robot_sm.teleop.selector import BoolSelector, create_bool_selector
from robot_sm.teleop.session import decode_control_outputs
from robot_sm.teleop.state_manager import DefaultTeleopStateManager

STOPPED, PAUSED, RUNNING = ExecutionState.STOPPED, ExecutionState.PAUSED, ExecutionState.RUNNING
CONTEXT = ComputeContext(0.0)


def run_selector(selector: BoolSelector, values: Sequence[object]) -> List[Optional[bool]]:
    """Feed raw values (None = absent input) and return the outputs."""
    return [selector.compute({'input': v}, CONTEXT)['value'] for v in values]


def identity_selector(**kwargs: object) -> BoolSelector:
    return BoolSelector('s', lambda v: v, **kwargs)  # type: ignore[arg-type]


# --- selector ---------------------------------------------------------------------------------

def test_press_must_hold_two_frames_and_registers_one_frame_late() -> None:
    assert run_selector(identity_selector(), [1, 1, 1, 0, 0, 0]) == [
        False, True, True, True, False, False]


def test_one_frame_glitches_are_filtered() -> None:
    assert run_selector(identity_selector(), [1, 0, 1, 0]) == [False] * 4


def test_hysteresis_with_single_frame_debounce() -> None:
    selector = identity_selector(threshold=0.6, release_threshold=0.3, activate_frames=1,
                                 deactivate_frames=1)
    assert run_selector(selector, [0.5, 0.7, 0.4, 0.2, 0.5]) == [False, True, True, False, False]


def test_bools_bypass_the_thresholds() -> None:
    selector = identity_selector(threshold=5.0, activate_frames=1, deactivate_frames=1)
    assert run_selector(selector, [True, np.bool_(False), np.bool_(True), 4.9]) == [
        True, False, True, False]


def test_absent_input_gives_absent_output_and_resets_the_debounce() -> None:
    selector = identity_selector()
    assert run_selector(selector, [1, 1, None]) == [False, True, None]
    # A press half-way through the debounce is forgotten over the gap.
    selector = identity_selector(activate_frames=3)
    assert run_selector(selector, [0, 0, 0]) == [False, False, False]
    assert run_selector(selector, [1, 1, None, 1]) == [False, False, None, None]


def test_selector_returning_none_or_nan_is_absent() -> None:
    selector = BoolSelector('s', lambda v: None if v == 'gone' else v,
                            activate_frames=1, deactivate_frames=1)
    assert run_selector(selector, [1.0, 'gone', float('nan'), 1.0]) == [True, None, None, True]


def test_after_a_dropout_the_output_stays_absent_until_the_value_is_steady() -> None:
    selector = identity_selector()
    # Held through the gap: comes back as held (True) once steady, never as False-then-True.
    assert run_selector(selector, [1, 1, 1, None, 1, 1, 1]) == [
        False, True, True, None, None, True, True]
    # Released through the gap: comes back released after deactivate_frames.
    assert run_selector(selector, [None, 0, 0, 0]) == [None, None, False, False]


def test_selector_rejects_bad_configuration() -> None:
    with pytest.raises(TypeError):
        identity_selector(threshold=True)
    with pytest.raises(TypeError):
        identity_selector(threshold='0.5')
    for bad in (float('nan'), float('inf'), -0.1):
        with pytest.raises(ValueError):
            identity_selector(threshold=bad)
        with pytest.raises(ValueError):
            identity_selector(release_threshold=bad)
    with pytest.raises(ValueError, match='release_threshold'):
        identity_selector(threshold=0.4, release_threshold=0.6)
    with pytest.raises(ValueError, match='activate_frames'):
        identity_selector(activate_frames=0)
    with pytest.raises(ValueError, match='deactivate_frames'):
        identity_selector(deactivate_frames=0)
    with pytest.raises(TypeError):
        BoolSelector('s', 'not callable')  # type: ignore[arg-type]


def test_selector_rejects_a_selector_returning_another_type() -> None:
    with pytest.raises(TypeError, match='str'):
        run_selector(BoolSelector('s', lambda v: 'yes'), [1])


def test_controller_fields_by_index() -> None:
    sample = ControllerSample(secondary_click=1.0, squeeze_value=0.7, trigger_value=0.2)
    assert sample[ControllerInputIndex.SECONDARY_CLICK] == 1.0
    assert sample[ControllerInputIndex.SQUEEZE_VALUE] == 0.7
    assert sample[ControllerInputIndex(13)] == 0.2
    assert sample[ControllerInputIndex.GRIP_IS_VALID] is False


def test_create_bool_selector_reads_a_controller_field() -> None:
    controllers = controllers_source()
    node = create_bool_selector(controllers.output('left'), name='kill',
                                selector_fn=lambda s: s.secondary_click, activate_frames=1)
    graph = OutputCombiner({'kill': node.output('value')})
    pressed = ControllerSample(secondary_click=1.0)
    outputs = [graph.execute({'controllers': {'left': s, 'right': None}}, CONTEXT)['kill']
               for s in (ControllerSample(), pressed, None)]
    assert outputs == [False, True, None]
    assert graph.outputs['kill'].optional
    with pytest.raises(ValueError, match='Available outputs'):
        create_bool_selector(controllers.output('middle'), name='x', selector_fn=bool)


# --- state manager ----------------------------------------------------------------------------

class Manager:
    """Drives a DefaultTeleopStateManager tick by tick."""

    def __init__(self, **kwargs: bool) -> None:
        self.manager = DefaultTeleopStateManager(**kwargs)

    def tick(self, kill: Optional[bool] = False, toggle: Optional[bool] = False,
             reset: Optional[bool] = False) -> tuple:
        out = self.manager.compute({'kill_button': kill, 'run_toggle_button': toggle,
                                    'reset_button': reset}, CONTEXT)
        events = decode_control_outputs(out)
        return events.state, events.reset

    def press_toggle(self) -> tuple:
        self.tick(toggle=True)
        return self.tick()

    def running(self) -> 'Manager':
        self.tick()
        self.press_toggle()
        assert self.press_toggle() == (RUNNING, False)
        return self


def test_starts_stopped_and_toggle_steps_through_paused_and_running() -> None:
    m = Manager()
    assert m.tick() == (STOPPED, False)
    assert m.tick(toggle=True) == (PAUSED, False)
    assert m.tick(toggle=True) == (PAUSED, False)  # held: one edge only
    assert m.tick() == (PAUSED, False)
    assert m.tick(toggle=True) == (RUNNING, False)
    m.tick()
    assert m.tick(toggle=True) == (PAUSED, False)
    m.tick()
    assert m.tick(toggle=True) == (RUNNING, False)


def test_kill_is_level_held_with_a_reset_every_tick_and_beats_the_toggle() -> None:
    m = Manager().running()
    assert m.tick(kill=True) == (STOPPED, True)
    assert m.tick(kill=True, toggle=True) == (STOPPED, True)
    assert m.tick(kill=True) == (STOPPED, True)
    assert m.tick() == (STOPPED, False)
    assert m.tick(toggle=True) == (PAUSED, False)


def test_reset_button_pulses_once_per_press_and_keeps_the_state() -> None:
    m = Manager().running()
    assert m.tick(reset=True) == (RUNNING, True)
    assert m.tick(reset=True) == (RUNNING, False)
    assert m.tick() == (RUNNING, False)
    assert m.tick(reset=True) == (RUNNING, True)
    assert m.tick(reset=None) == (RUNNING, False)  # an absent reset channel never resets


@pytest.mark.parametrize('lost', ['kill', 'toggle', 'both'])
def test_missing_kill_or_toggle_stops_at_once_with_one_reset(lost: str) -> None:
    m = Manager().running()
    kill = None if lost in ('kill', 'both') else False
    toggle = None if lost in ('toggle', 'both') else False
    assert m.tick(kill=kill, toggle=toggle, reset=None) == (STOPPED, True)
    assert m.tick(kill=kill, toggle=toggle, reset=None) == (STOPPED, False)
    assert m.tick(kill=kill, toggle=toggle) == (STOPPED, False)


def test_no_loss_reset_when_disabled() -> None:
    m = Manager(reset_on_input_loss=False).running()
    assert m.tick(kill=None, toggle=None, reset=None) == (STOPPED, False)


def test_start_up_without_inputs_is_not_a_loss() -> None:
    m = Manager()
    assert m.tick(kill=None, toggle=None, reset=None) == (STOPPED, False)


def test_toggle_held_through_a_dropout_needs_a_release() -> None:
    m = Manager()
    m.tick()
    assert m.tick(toggle=True) == (PAUSED, False)
    assert m.tick(toggle=None, kill=None) == (STOPPED, True)
    assert m.tick(toggle=True) == (STOPPED, False)
    assert m.tick(toggle=True) == (STOPPED, False)
    assert m.tick() == (STOPPED, False)
    assert m.tick(toggle=True) == (PAUSED, False)


def test_toggle_held_at_start_needs_a_release() -> None:
    m = Manager()
    assert m.tick(toggle=True) == (STOPPED, False)
    assert m.tick() == (STOPPED, False)
    assert m.tick(toggle=True) == (PAUSED, False)


def control_graph(source: Source) -> OutputCombiner:
    hand = source.output('left')
    kill = create_bool_selector(hand, name='kill', selector_fn=lambda s: s.secondary_click)
    toggle = create_bool_selector(hand, name='toggle', selector_fn=lambda s: s.primary_click)
    reset = create_bool_selector(hand, name='reset', selector_fn=lambda s: s.thumbstick_click)
    manager = DefaultTeleopStateManager()
    node = manager.connect({'kill_button': kill.output('value'),
                            'run_toggle_button': toggle.output('value'),
                            'reset_button': reset.output('value')})
    return OutputCombiner({'teleop_state': node.output('teleop_state'),
                           'reset_event': node.output('reset_event')})


def test_debounced_toggle_held_through_a_controller_dropout_does_not_advance() -> None:
    source = controllers_source()
    graph = control_graph(source)

    def tick(sample: Optional[ControllerSample]) -> tuple:
        events = decode_control_outputs(
            graph.execute({'controllers': {'left': sample, 'right': None}}, CONTEXT))
        return events.state, events.reset

    idle, held = ControllerSample(), ControllerSample(primary_click=1.0)
    states = [tick(s) for s in (idle, idle, held, held, held)]
    assert states[-1] == (PAUSED, False)
    assert tick(None) == (STOPPED, True)
    # The button is still held when the controller comes back: nothing happens, however long.
    assert [tick(held) for _ in range(6)] == [(STOPPED, False)] * 6
    # A real release and press does.
    states = [tick(s) for s in (idle, idle, idle, held, held, held)]
    assert states[-1] == (PAUSED, False)


def test_one_hot_and_decoding_rules() -> None:
    assert one_hot(PAUSED) == (('stopped', False), ('paused', True), ('running', False))
    good = {'teleop_state': one_hot(RUNNING), 'reset_event': True}
    assert decode_control_outputs(good).state is RUNNING
    bad_outputs = [
        {'reset_event': False},
        {'teleop_state': one_hot(RUNNING)},
        {'teleop_state': (('stopped', True), ('halted', False), ('running', False)),
         'reset_event': False},
        {'teleop_state': (('stopped', True), ('stopped', False), ('running', False)),
         'reset_event': False},
        {'teleop_state': (('stopped', True), ('paused', False)), 'reset_event': False},
        {'teleop_state': (('stopped', True), ('paused', True), ('running', False)),
         'reset_event': False},
        {'teleop_state': (('stopped', False), ('paused', False), ('running', False)),
         'reset_event': False},
        {'teleop_state': one_hot(RUNNING), 'reset_event': (True, False)},
    ]
    for outputs in bad_outputs:
        with pytest.raises(ValueError):
            decode_control_outputs(outputs)
