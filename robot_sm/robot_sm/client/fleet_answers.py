"""What :class:`~robot_sm.client.fleet.FleetClient` answers: each robot's status and stop."""

from dataclasses import dataclass
from typing import Any, Optional, Tuple


@dataclass
class RobotStatus:
    """One robot as the fleet view shows it (None where the robot did not say in time)."""

    namespace: str
    state: Optional[str] = None
    #: How the last activity ended, if the robot has said.
    outcome: Optional[str] = None
    mode: Optional[str] = None
    emergency_stop: Optional[bool] = None
    #: (x, y, yaw) in the map frame.
    pose: Optional[Tuple[float, float, float]] = None
    pose_error: Optional[str] = None
    waypoints: int = 0
    visited: int = 0
    unreachable: int = 0
    #: False for a robot expected (the roster) but not found on the domain.
    found: bool = True


@dataclass
class Acknowledgement:
    """One robot's answer to a fleet-wide e-stop."""

    namespace: str
    #: The mux said yes and its operation mode shows the e-stop as asked, within the timeout.
    confirmed: bool
    #: The mux's answer (``success``), None if it gave none in time.
    answered: Optional[bool]
    #: The mux's message, or what did not happen in time.
    message: str
    #: The e-stop as the robot's operation mode last showed it (None: never heard).
    emergency_stop: Optional[bool]
    #: Seconds from the request to the confirmation (None if not confirmed).
    seconds: Optional[float] = None
    #: False for a robot expected (the roster) but not found on the domain: never asked.
    found: bool = True

    @property
    def verdict(self) -> str:
        """Return ``confirmed``, ``NOT CONFIRMED`` (found, silent or refusing), ``NOT FOUND``."""
        if not self.found:
            return 'NOT FOUND'
        return 'confirmed' if self.confirmed else 'NOT CONFIRMED'


def acknowledgement(namespace: str, result: Tuple[Any, str], confirmed_at: Optional[float],
                    shown: Optional[bool], engaged: bool, started: float,
                    deadline: float) -> Acknowledgement:
    """
    Return the acknowledgement of a robot that was found and asked.

    ``result`` is its mux's answer and '', or None and why none came; ``confirmed_at`` when its
    operation mode showed the e-stop as asked (None: it did not), ``shown`` the e-stop as it
    last showed it.
    """
    answer, problem = result
    if confirmed_at is not None:
        return Acknowledgement(namespace, True, True, str(answer.message), shown,
                               confirmed_at - started)
    if answer is None:
        return Acknowledgement(namespace, False, None, problem, shown)
    if not answer.success:
        return Acknowledgement(namespace, False, False, str(answer.message), shown)
    return Acknowledgement(
        namespace, False, True, 'the mux said yes but its operation mode did not show the '
        f"e-stop {'engaged' if engaged else 'released'} within {deadline - started:g} s", shown)
