"""Arm joints that follow their position commands with a first-order lag."""

import math
from typing import Dict, Optional, Sequence


class FirstOrderJoints:
    """
    Joint positions that approach their commands with time constant ``time_constant`` seconds.

    Joints start at ``initial`` (0 when not given); a command for an unknown joint or a non-finite
    value is ignored. Velocities are the rate of change over the last step.
    """

    def __init__(self, names: Sequence[str], time_constant: float = 0.1,
                 initial: Optional[Dict[str, float]] = None) -> None:
        if not (math.isfinite(time_constant) and time_constant > 0.0):
            raise ValueError(f'time_constant must be a positive number, got {time_constant}')
        self.names = list(names)
        self.time_constant = time_constant
        self.positions = {name: float((initial or {}).get(name, 0.0)) for name in self.names}
        self.velocities = dict.fromkeys(self.names, 0.0)
        self._targets = dict(self.positions)

    def command(self, positions: Dict[str, float]) -> None:
        """Set new targets for the named joints."""
        for name, value in positions.items():
            if name in self._targets and math.isfinite(value):
                self._targets[name] = float(value)

    def step(self, dt: float) -> None:
        """Move every joint towards its target over ``dt`` seconds."""
        if dt <= 0.0:
            return
        gain = 1.0 - math.exp(-dt / self.time_constant)
        for name in self.names:
            change = (self._targets[name] - self.positions[name]) * gain
            self.positions[name] += change
            self.velocities[name] = change / dt
