"""Boot: wait until the suite can work, then Idle."""

from typing import Optional

from robot_sm.statemachine.base_state import Answer, BaseState, StateParameter
from robot_sm.statemachine.calls import PendingCall
from robot_sm.statemachine.constants import Interrupt, Role

#: Services that must be reachable before the robot leaves Boot: the service provider and mux.
REQUIRED_SERVICES = (
    ('robot_sm/get_waypoints', 'robot_sm_msgs/srv/GetWaypoints'),
    ('robot_sm/set_operation_mode', 'robot_sm_msgs/srv/SetOperationMode'),
)


class Boot(BaseState):
    """
    Finish when the service provider and mux answer and ``boot_up_service`` (if set) says true.

    RSM called its boot service synchronously on every tick; here one call is in flight at a
    time, retried every ``retry_interval`` seconds.
    """

    NAME = 'Boot'
    PARAMETERS = (
        StateParameter('retry_interval', 1.0, 'Seconds between calls of boot_up_service.',
                       minimum=0.01, maximum=60.0),
    )
    INTERRUPTS = (Interrupt.EMERGENCY_STOP,)

    def on_entry(self) -> None:
        """Start waiting."""
        self._call: Optional[PendingCall] = None
        self._next_call = self.context.now()
        self._waiting_since = self.context.now()
        self._complained = False

    def on_active(self) -> None:
        """Check the services, then the boot service; go to Idle when all is well."""
        context = self.context
        missing = [name for name, srv_type in REQUIRED_SERVICES
                   if not context.service_ready(name, srv_type)]
        if missing:
            if not self._complained and context.now() - self._waiting_since > 5.0:
                context.logger.warning(f"still booting: waiting for {', '.join(missing)}")
                self._complained = True
            return
        service = str(context.parameter('boot_up_service'))
        if service:
            if self._call is None:
                if context.now() >= self._next_call:
                    self._call = context.call(service, 'std_srvs/srv/SetBool', {'data': True})
                return
            if not self._call.done():
                return
            call, self._call = self._call, None
            if not call.succeeded:
                context.logger.warning(f'still booting: {call.describe()}', )
                self._next_call = context.now() + context.parameter('retry_interval')
                return
        assert self.machine is not None
        self.machine.booted = True
        if self.transition(Role.IDLE):
            self.report('boot finished')

    def on_exploration_start(self) -> Answer:
        """Refuse while booting."""
        return False, 'Still booting'

    def on_exploration_stop(self) -> Answer:
        """Refuse while booting."""
        return False, 'Still booting'

    def on_waypoint_following_start(self) -> Answer:
        """Refuse while booting (RSM's misnamed hook answered nothing here)."""
        return False, 'Still booting'

    def on_waypoint_following_stop(self) -> Answer:
        """Refuse while booting."""
        return False, 'Still booting'
