"""
Switch between controllers at run time, e.g. from a state machine or a behaviour tree.

A :class:`ControllerContainer` holds controllers under keys (typically an Enum). A switch is
requested with :meth:`~ControllerContainer.set_next_controller` and happens inside the next
``forward``, which first resets the newly selected controller with that step's inputs, so a
controller always starts from the state the robot is in when it takes over.
"""

from typing import Any, Dict, Generic, Hashable, Mapping, Optional, TypeVar

from robot_sm.control.base_controller import BaseController
from robot_sm.control.robot_state import RobotState

KeyT = TypeVar('KeyT', bound=Hashable)


class ControllerContainer(BaseController, Generic[KeyT]):
    """One active controller out of several, switched on the next ``forward``."""

    def __init__(self, controller_options: Mapping[KeyT, BaseController],
                 initial_controller_selection: KeyT) -> None:
        """
        Hold ``controller_options``, starting (and restarting on reset) with the initial key.

        Nothing is reset here.

        :raises ValueError: if there are no controllers or one is not a BaseController.
        :raises KeyError: if the initial key is not one of the options.
        """
        if not controller_options:
            raise ValueError('ControllerContainer needs at least one controller')
        for key, controller in controller_options.items():
            if not isinstance(controller, BaseController):
                raise ValueError(f'ControllerContainer: option {key!r} is not a BaseController')
        if initial_controller_selection not in controller_options:
            raise KeyError(f'initial controller {initial_controller_selection!r} is not one of '
                           f'{list(controller_options)}')
        self._options: Dict[KeyT, BaseController] = dict(controller_options)
        self._initial = initial_controller_selection
        self._active = initial_controller_selection
        self._next = initial_controller_selection
        self._switch_pending_reset = False

    def reset(self, estimated_state: RobotState, setpoint_state: Optional[RobotState],
              t: float, **kwargs: Any) -> bool:
        """Select the initial controller again (cancelling a pending switch) and reset it only."""
        self._active = self._next = self._initial
        self._switch_pending_reset = False
        return self._options[self._initial].reset(estimated_state, setpoint_state, t, **kwargs)

    def set_next_controller(self, key: KeyT) -> None:
        """
        Request a switch to ``key`` on the next ``forward``; nothing is reset or run now.

        :raises LookupError: if ``key`` is not one of the options.
        """
        if key not in self._options:
            raise LookupError(f'no controller {key!r}; options are {list(self._options)}')
        self._next = key

    def forward(self, estimated_state: RobotState, setpoint_state: Optional[RobotState],
                t: float, **kwargs: Any) -> Optional[RobotState]:
        """
        Switch if requested (resetting the new controller first), then run the active one.

        :raises RuntimeError: if the newly selected controller fails to reset. The switch stays
            recorded (it is the active controller), but it is never run un-reset: every later
            ``forward`` tries its reset again and raises until it succeeds.
        """
        if self._next != self._active:
            self._active = self._next
            self._switch_pending_reset = True
        if self._switch_pending_reset:
            if not self._options[self._active].reset(
                    estimated_state, setpoint_state, t, **kwargs):
                raise RuntimeError(f'controller {self._active!r} failed to reset on switching')
            self._switch_pending_reset = False
        return self._options[self._active].forward(estimated_state, setpoint_state, t, **kwargs)

    def get_active_controller_enum(self) -> KeyT:
        """Return the key of the active controller."""
        return self._active

    def get_controller(self, key: KeyT) -> BaseController:
        """
        Return the controller under ``key``.

        :raises LookupError: if ``key`` is not one of the options.
        """
        try:
            return self._options[key]
        except KeyError:
            raise LookupError(f'no controller {key!r}; options are {list(self._options)}') \
                from None
