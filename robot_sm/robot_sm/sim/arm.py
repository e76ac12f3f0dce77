"""
Arm joints that follow position commands like position-controlled servos, within their limits.

Commands and motion go through the controller library (:mod:`robot_sm_control`):

- a :class:`~robot_sm_control.CommandController` with an absolute-position
  :class:`~robot_sm_control.JointLaw` turns each command into the joints' target, clipped to their
  position limits (a sticky goal: the last target holds until the next command);
- every step the servo asks for the velocity that closes the gap to the target with time
  constant ``time_constant``; a second :class:`~robot_sm_control.CommandController`, a velocity
  :class:`~robot_sm_control.JointLaw`, clips that demand to the joints' velocity limits (the
  speed of the real servos), and the positions integrate it, clipped to the position limits.

So a small move follows a first-order lag and a large one runs at the speed limit, and no joint
ever leaves its range. A command for an unknown joint, or a non-finite value, changes nothing.
"""

import math
from typing import Mapping, Sequence

import numpy as np

from robot_sm_control import (CommandController, ControlLimits, ControlType, JOINT_POSITION,
                              JOINT_VELOCITY, JointLaw)


class ServoJoints:
    """Position-controlled joints with position and velocity limits."""

    def __init__(self, names: Sequence[str], limits: ControlLimits,
                 time_constant: float = 0.1) -> None:
        """
        Simulate the joints ``names`` with ``limits`` (one DOF per name, in that order).

        Joints start at 0, clipped to their limits.

        :raises ValueError: for a time constant that is not a positive number, or limits that
            do not have one DOF per name.
        """
        if not (math.isfinite(time_constant) and time_constant > 0.0):
            raise ValueError(f'time_constant must be a positive number, got {time_constant}')
        if limits.n_dof != len(names):
            raise ValueError(f'limits have {limits.n_dof} DOFs for {len(names)} joints')
        self.names = list(names)
        self.time_constant = float(time_constant)
        self._index = {name: index for index, name in enumerate(self.names)}
        dofs = list(range(len(self.names)))
        self._position = CommandController(JointLaw(limits, dofs, 'position'), None, None)
        self._velocity = CommandController(JointLaw(limits, dofs, 'velocity'), None, None)
        self._lower, self._upper = limits.clip_bounds(ControlType.POSITION,
                                                      self._position.law.dof_idx)
        self.positions = np.clip(np.zeros(len(self.names)), self._lower, self._upper)
        self.velocities = np.zeros(len(self.names))
        self._target = self.positions.copy()

    def _state(self) -> Mapping[str, np.ndarray]:
        return {JOINT_POSITION: self.positions, JOINT_VELOCITY: self.velocities}

    @property
    def targets(self) -> np.ndarray:
        """Return the targets the joints move to (commands clipped to the position limits)."""
        return self._target.copy()

    def command(self, positions: Mapping[str, float]) -> int:
        """Set new targets for the named joints; return how many were taken."""
        command = self._target.copy()
        taken = 0
        for name, value in positions.items():
            index = self._index.get(name)
            if index is not None and math.isfinite(value):
                command[index] = value
                taken += 1
        if taken:
            self._position.update_goal(command, self._state())
            self._target = self._position.step(self._state())
        return taken

    def step(self, dt: float) -> None:
        """Move every joint towards its target over ``dt`` seconds, within the speed limits."""
        if not (math.isfinite(dt) and dt > 0.0):
            return
        closing = (self._target - self.positions) * (-math.expm1(-dt / self.time_constant)) / dt
        self._velocity.update_goal(closing, self._state())
        velocities = self._velocity.step(self._state())
        moved = np.clip(self.positions + velocities * dt, self._lower, self._upper)
        self.velocities = (moved - self.positions) / dt
        self.positions = moved
