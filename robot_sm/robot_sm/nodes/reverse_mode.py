"""
The service provider's reverse driving mode, changed only once the navigation accepts it.

With ``navigation_reverse_service`` set, a change is first asked of the navigation (a SetBool
service): no callback blocks, the asking service is asynchronous, in a callback group of its own
that awaits the answer or a timeout, while the executor keeps serving the other services.
"""

import threading
from typing import Any, Callable, Optional

from rclpy.callback_groups import ReentrantCallbackGroup
from rclpy.client import Client
from rclpy.clock import Clock, ClockType
from rclpy.task import Future
from robot_sm.qos import SERVICES
from robot_sm.waypoints import DataStore, RequestError
from std_srvs.srv import SetBool, Trigger


class ReverseModeService:
    """The reverse mode services of :class:`robot_sm.nodes.service_provider.ServiceProvider`."""

    _store: DataStore
    _lock: threading.Lock
    _serve: Callable[[Any, Callable[[], str]], Any]
    create_service: Callable[..., Any]
    create_client: Callable[..., Any]
    create_timer: Callable[..., Any]
    destroy_timer: Callable[..., Any]
    control: Any

    def _start_reverse_mode_service(self, navigation_service: str, timeout: float) -> None:
        """Serve ``robot_sm/set_reverse_mode``, asking ``navigation_service`` first if given."""
        # The handshake awaits another node: a group of its own, so that the other services
        # keep answering while it waits.
        self._reverse_group = ReentrantCallbackGroup()
        self._reverse_asking = False
        self._reverse_timeout = timeout
        self._steady_clock = Clock(clock_type=ClockType.STEADY_TIME)
        self.create_service(SetBool, 'robot_sm/set_reverse_mode', self._set_reverse_mode,
                            qos_profile=SERVICES, callback_group=self._reverse_group)
        self._reverse_client: Optional[Client] = None
        if navigation_service:
            self._reverse_client = self.create_client(
                SetBool, navigation_service, qos_profile=SERVICES,
                callback_group=self._reverse_group)

    def _get_reverse_mode(self, _: Trigger.Request, response: Trigger.Response) -> Any:
        with self._lock:
            response.success = self._store.reverse_mode
        response.message = 'Reverse mode active' if response.success else 'Forward mode active'
        return response

    async def _set_reverse_mode(self, request: SetBool.Request,
                                response: SetBool.Response) -> SetBool.Response:
        refusal = self.control.raw_refusal()  # a raw ROS request
        if refusal:
            response.success, response.message = False, refusal
            return response
        return await self._change_reverse_mode(bool(request.data), response)

    async def _change_reverse_mode(self, reverse: bool, response: Any) -> Any:
        """Switch reverse driving once the navigation agreed; fill ``response`` and return it."""
        with self._lock:
            try:
                self._store.check_reverse_mode(reverse)
                if self._reverse_asking:
                    raise RequestError('data', 'a reverse mode change is already waiting for '
                                               'the navigation to answer')
            except RequestError as error:
                response.success = False
                response.message = str(error)
                return response
            self._reverse_asking = True
        try:
            refusal = await self._ask_navigation(reverse)
        finally:
            self._reverse_asking = False
        if refusal:
            response.success = False
            response.message = refusal + '; reverse mode unchanged'
            return response
        return self._serve(response, lambda: self._store.set_reverse_mode(reverse))

    async def _ask_navigation(self, reverse: bool) -> str:
        """Return why the navigation refused to drive ``reverse``; empty if it accepted."""
        client = self._reverse_client
        if client is None:
            return ''
        name = client.srv_name
        if not client.service_is_ready():
            return f'{name} is not available'
        # Resolved by the answer or by the timeout timer, whichever comes first; the executor
        # keeps serving everything else meanwhile.
        outcome = Future()
        request = client.call_async(SetBool.Request(data=reverse))

        def settle(result: Any) -> None:
            if not outcome.done():
                outcome.set_result(result)

        request.add_done_callback(lambda answered: settle(answered.result()))
        # A communication timeout: steady time, also under use_sim_time with a paused /clock.
        timer = self.create_timer(self._reverse_timeout, lambda: settle(None),
                                  callback_group=self._reverse_group, clock=self._steady_clock)
        try:
            answer = await outcome
        finally:
            self.destroy_timer(timer)
            client.remove_pending_request(request)
        if answer is None:
            return f'{name} did not answer within {self._reverse_timeout:g} s'
        if not answer.success:
            return f'{name} refused: {answer.message}'
        return ''
