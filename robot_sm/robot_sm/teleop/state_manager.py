"""
The default teleop state machine: kill, run toggle and reset buttons to an execution state.

- Kill is level-held: while it is pressed the state is STOPPED and a reset is emitted every tick
  (kill beats a toggle in the same tick).
- A rising edge of the run toggle steps STOPPED → PAUSED → RUNNING → PAUSED → RUNNING …; there is
  no toggle path back to STOPPED (only kill or input loss stop).
- A rising edge of reset emits one reset and leaves the state alone.
- Fail-safe: when kill or run toggle is absent the state is STOPPED in the same tick, with one
  reset on the first lost tick (``reset_on_input_loss``), whether or not the reset channel is
  still there. Every button then counts as held, so a button still down when the inputs come back
  must be released before it can act. The manager starts in that lost condition: a button held at
  start does nothing until released, and start-up itself is no loss (no reset).

Output contract: ``teleop_state``, one-hot channels ``stopped, paused, running``, and
``reset_event``, one bool.
"""

from typing import Mapping, Optional

from robot_sm.teleop.execution import ComputeContext, ExecutionState, one_hot
from robot_sm.teleop.graph import Port, Retargeter, Value, Values

_NEXT_ON_TOGGLE = {
    ExecutionState.STOPPED: ExecutionState.PAUSED,
    ExecutionState.PAUSED: ExecutionState.RUNNING,
    ExecutionState.RUNNING: ExecutionState.PAUSED,
}


class DefaultTeleopStateManager(Retargeter):
    """Kill / run-toggle / reset state machine with a fail-safe on missing inputs."""

    INPUT_KILL = 'kill_button'
    INPUT_RUN_TOGGLE = 'run_toggle_button'
    INPUT_RESET = 'reset_button'
    OUTPUT_STATE = 'teleop_state'
    OUTPUT_RESET = 'reset_event'

    def __init__(self, name: str = 'teleop_state_manager', *,
                 reset_on_input_loss: bool = True) -> None:
        super().__init__(
            name,
            [Port(self.INPUT_KILL, True), Port(self.INPUT_RUN_TOGGLE, True),
             Port(self.INPUT_RESET, True)],
            [Port(self.OUTPUT_STATE), Port(self.OUTPUT_RESET)])
        self.reset_on_input_loss = bool(reset_on_input_loss)
        self.state = ExecutionState.STOPPED
        self._lost = True
        self._prev_kill = self._prev_toggle = self._prev_reset = True

    def compute(self, inputs: Mapping[str, Value], context: ComputeContext) -> Values:
        """Advance one tick and return the one-hot state and the reset pulse."""
        kill: Optional[bool] = inputs[self.INPUT_KILL]
        toggle: Optional[bool] = inputs[self.INPUT_RUN_TOGGLE]
        reset_button: Optional[bool] = inputs[self.INPUT_RESET]
        if kill is None or toggle is None:
            reset = self.reset_on_input_loss and not self._lost
            self._lost = True
            self._prev_kill = self._prev_toggle = self._prev_reset = True
            self.state = ExecutionState.STOPPED
            return self._outputs(reset)
        self._lost = False
        reset = False
        if reset_button is not None:
            reset = bool(reset_button) and not self._prev_reset
            self._prev_reset = bool(reset_button)
        toggle_edge = bool(toggle) and not self._prev_toggle
        self._prev_kill = bool(kill)
        self._prev_toggle = bool(toggle)
        if kill:
            self.state = ExecutionState.STOPPED
            reset = True
        elif toggle_edge:
            self.state = _NEXT_ON_TOGGLE[self.state]
        return self._outputs(reset)

    def _outputs(self, reset: bool) -> Values:
        return {self.OUTPUT_STATE: one_hot(self.state), self.OUTPUT_RESET: reset}
