"""Paused: an activity held at its place, the robot at zero, until continue (or a stop)."""

from typing import Optional

from robot_sm.contract import Activity, Answer
from robot_sm.parameters import Param
from robot_sm.statemachine.base_state import BaseState
from robot_sm.statemachine.resumable import Resumable


class Paused(BaseState):
    """
    Hold the paused activity (:attr:`paused`, set by the machine) until an operator continues.

    Nothing of the activity runs: the state it was paused in stopped what it commanded when it
    was left (a navigation goal cancelled, zero sent), and nothing drives in autonomy. A stop of
    the paused activity ends it (outcome ``stopped``); with ``max_pause`` (s, 0: never) it is
    abandoned after that long (outcome ``abandoned``). Starts of other activities are refused
    while one is paused.
    """

    NAME = 'Paused'
    OUTCOMES = ('stopped', 'abandoned')
    PARAMETERS = (Param('max_pause', 0.0, 'Seconds after which a paused activity is abandoned '
                        '(it ends, the robot idles); 0: it waits for continue or a stop.',
                        minimum=0.0),)

    #: The paused activity, with its place.
    paused: Optional[Resumable] = None

    @property
    def name(self) -> str:
        """Return ``Paused (<the state it was paused in>)``."""
        return f'Paused ({self.paused.state})' if self.paused is not None else 'Paused'

    def on_entry(self) -> None:
        """Start counting the pause."""
        self._since = self.context.now()

    def on_active(self) -> None:
        """Abandon the activity once it has been paused for longer than ``max_pause``."""
        limit = float(self.context.parameter('max_pause'))
        if limit > 0.0 and self.running and self.context.now() - self._since > limit:
            what = self.paused.describe() if self.paused is not None else 'the activity'
            self.finish('abandoned', f'{what} abandoned: paused for more than {limit:g} s '
                                     '(max_pause)')

    def _paused_one(self, activity: Activity) -> bool:
        return self.paused is not None and self.paused.activity is activity

    def _stop_paused(self, activity: Activity, label: str) -> Answer:
        if not self._paused_one(activity):
            return Answer(False, f'{label} not running')
        return self.stop_activity(f'{label} stopped')

    def _refuse_start(self) -> Answer:
        what = self.paused.describe() if self.paused is not None else 'an activity'
        return Answer(False, f'{what} is paused: continue it (robot-sm continue) or stop it '
                             'first')

    def on_exploration_start(self) -> Answer:
        """Refuse: an activity is paused."""
        return self._refuse_start()

    def on_waypoint_following_start(self) -> Answer:
        """Refuse: an activity is paused."""
        return self._refuse_start()

    def on_exploration_stop(self) -> Answer:
        """Stop a paused exploration."""
        return self._stop_paused(Activity.EXPLORATION, 'Exploration')

    def on_waypoint_following_stop(self) -> Answer:
        """Stop a paused round."""
        return self._stop_paused(Activity.WAYPOINT_FOLLOWING, 'Waypoint following')

    def stop_simple_goal(self) -> Answer:
        """Stop a paused simple goal."""
        return self._stop_paused(Activity.SIMPLE_GOAL, 'Simple goal')
