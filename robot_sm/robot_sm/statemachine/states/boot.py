"""Boot: wait until the suite can work, then Idle."""

from typing import Any, Optional

from robot_sm.contract import Answer
from robot_sm.parameters import duration
from robot_sm.statemachine.base_state import BaseState
from robot_sm.statemachine.calls import PendingCall


class Boot(BaseState):
    """
    Finish when the service provider and mux answer and ``boot_up_service`` (if set) says true.

    RSM called its boot service synchronously on every tick; here one call is in flight at a
    time, retried every ``retry_interval`` seconds.
    """

    NAME = 'Boot'
    OUTCOMES = ('booted',)
    PARAMETERS = (duration('retry_interval', 1.0, 'Time between calls of boot_up_service.',
                           0.01, 60.0),)

    def on_entry(self) -> None:
        """Start waiting."""
        self._call: Optional[PendingCall[Any]] = None
        self._next_call = self.context.now()
        self._waiting_since = self.context.now()
        self._complained = False

    def on_active(self) -> None:
        """Check the services, then the boot service; finish when all is well."""
        context = self.context
        missing = self.suite.missing_services()
        if missing:
            if not self._complained and context.now() - self._waiting_since > 5.0:
                context.logger.warning(f"still booting: waiting for {', '.join(missing)}")
                self._complained = True
            return
        if str(context.parameter('boot_up_service')) and not self._robot_ready():
            return
        self.finish('booted', 'boot finished')

    def _robot_ready(self) -> bool:
        """Ask the robot's ``boot_up_service``, one call at a time; return True once it agrees."""
        context = self.context
        if self._call is None:
            if context.now() >= self._next_call:
                self._call = context.call(str(context.parameter('boot_up_service')),
                                          'std_srvs/srv/SetBool', {'data': True})
            return False
        if not self._call.done():
            return False
        call, self._call = self._call, None
        if not call.succeeded:
            context.logger.warning(f'still booting: {call.describe()}')
            self._next_call = context.now() + context.parameter('retry_interval')
            return False
        return True

    def on_exploration_start(self) -> Answer:
        """Refuse while booting."""
        return Answer(False, 'Still booting')

    def on_exploration_stop(self) -> Answer:
        """Refuse while booting."""
        return Answer(False, 'Still booting')

    def on_waypoint_following_start(self) -> Answer:
        """Refuse while booting (RSM's misnamed hook answered nothing here)."""
        return Answer(False, 'Still booting')

    def on_waypoint_following_stop(self) -> Answer:
        """Refuse while booting."""
        return Answer(False, 'Still booting')
