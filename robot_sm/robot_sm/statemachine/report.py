"""What the state interface tells operators' tools about the machine: one typed report."""

from dataclasses import dataclass
from typing import Optional

from robot_sm.statemachine.activity import Activity, Ended, Run


@dataclass(frozen=True)
class StateReport:
    """The state, its activity and how the last activity ended (``robot_sm/state``)."""

    #: The state's name as operators see it ('W: Navigation').
    name: str
    #: The role it plays, as the cycle document names roles ('waypoint_navigation').
    role: str
    #: The plugin playing the role ('Navigation').
    plugin: str
    #: The run of an activity the state belongs to; None outside activities.
    run: Optional[Run]
    #: How the last run ended (or a start was refused); None before any.
    last: Optional[Ended]
    #: The paused run and where it will continue; None when nothing is paused.
    paused: Optional[Run] = None
    resumable: str = ''

    @property
    def activity(self) -> Activity:
        """Give what the robot is doing now (NONE outside activities)."""
        return self.run.activity if self.run is not None else Activity.NONE
