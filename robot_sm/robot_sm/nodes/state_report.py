"""The state machine's typed report as ``robot_sm_msgs/StateInfo`` (``robot_sm/state``)."""

from typing import Any

from robot_sm.contract import Activity, Outcome
from robot_sm.statemachine.report import StateReport
from robot_sm_msgs.msg import StateInfo


def state_info(report: StateReport, stamp: Any) -> StateInfo:
    """Return ``report`` as a message stamped ``stamp`` (ROS time)."""
    msg = StateInfo(stamp=stamp, name=report.name, role=report.role, plugin=report.plugin)
    run = report.run
    if run is not None:
        msg.activity, msg.activity_name, msg.activity_id = \
            int(run.activity), run.name, run.activity_id
    last = report.last
    if last is not None:
        msg.last_outcome, msg.last_activity = int(last.outcome), int(last.run.activity)
        msg.last_activity_id, msg.last_outcome_text = last.run.activity_id, last.text
    else:
        msg.last_outcome, msg.last_activity = int(Outcome.NONE), int(Activity.NONE)
    paused = report.paused
    msg.paused = paused is not None
    if paused is not None:
        msg.paused_activity, msg.paused_activity_id = int(paused.activity), paused.activity_id
        msg.resumable = report.resumable
    return msg
