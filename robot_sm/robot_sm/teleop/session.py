"""
One teleop tick: resolve the execution events, then run the retargeting graph with them.

Events come, in order of precedence, from the caller (an explicit override), from the control
pipeline (selectors and a state manager whose outputs follow the ``teleop_state`` /
``reset_event`` contract), or default to RUNNING without reset when there is neither.
"""

from typing import Any, Dict, Optional

import numpy as np

from robot_sm.teleop.execution import ComputeContext, ExecutionEvents, ExecutionState
from robot_sm.teleop.execution import STATE_CHANNELS
from robot_sm.teleop.graph import ExternalInputs, OutputCombiner, Values

STATE_OUTPUT = 'teleop_state'
RESET_OUTPUT = 'reset_event'


def decode_control_outputs(outputs: Values) -> ExecutionEvents:
    """
    Return the execution events encoded in a control pipeline's outputs.

    :raises ValueError: if ``teleop_state`` or ``reset_event`` is missing, a state channel is
        unknown, duplicated or missing, the state is not one-hot, or the reset is not one bool.
    """
    for key in (STATE_OUTPUT, RESET_OUTPUT):
        if key not in outputs:
            raise ValueError(f"control pipeline has no '{key}' output")
    reset = outputs[RESET_OUTPUT]
    if not isinstance(reset, (bool, np.bool_)):
        raise ValueError(f"'{RESET_OUTPUT}' must be one bool, got {reset!r}")
    channels: Dict[str, bool] = {}
    for channel, value in outputs[STATE_OUTPUT]:
        if channel not in STATE_CHANNELS:
            raise ValueError(f"unknown '{STATE_OUTPUT}' channel '{channel}'; "
                             f"expected {', '.join(STATE_CHANNELS)}")
        if channel in channels:
            raise ValueError(f"duplicate '{STATE_OUTPUT}' channel '{channel}'")
        channels[channel] = bool(value)
    missing = [c for c in STATE_CHANNELS if c not in channels]
    if missing:
        raise ValueError(f"'{STATE_OUTPUT}' lacks channel(s) {', '.join(missing)}")
    active = [c for c in STATE_CHANNELS if channels[c]]
    if len(active) != 1:
        raise ValueError(f"'{STATE_OUTPUT}' must be one-hot, got {channels}")
    return ExecutionEvents(reset=bool(reset), state=ExecutionState(active[0]))


class TeleopSession:
    """Runs the control pipeline and the retargeting pipeline, one tick per :meth:`step`."""

    def __init__(self, pipeline: OutputCombiner,
                 control_pipeline: Optional[OutputCombiner] = None) -> None:
        self.pipeline = pipeline
        self.control_pipeline = control_pipeline
        self.last_context: Optional[ComputeContext] = None

    def step(self, external: ExternalInputs, now: float,
             events: Optional[ExecutionEvents] = None) -> Dict[str, Any]:
        """
        Run one tick at time ``now`` (seconds) and return the pipeline's outputs.

        ``events`` given by the caller win, and the control pipeline is not run in that tick.
        """
        if events is None:
            if self.control_pipeline is not None:
                control = self.control_pipeline.execute(external, ComputeContext(now))
                events = decode_control_outputs(control)
            else:
                events = ExecutionEvents(reset=False, state=ExecutionState.RUNNING)
        context = ComputeContext(now, events)
        self.last_context = context
        return self.pipeline.execute(external, context)
