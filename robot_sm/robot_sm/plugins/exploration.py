"""
The CalculateGoal plugin: choose the next exploration goal from the map's frontiers.

It searches the ``map`` topic for frontiers reachable from the robot (explore_lite's method,
:mod:`robot_sm.exploration`), publishes them on ``robot_sm/exploration_goals`` (for the service
provider's goal-obsolete check and for RViz), skips goals near the service provider's failed
goals, and drives to the lowest-cost one, facing from the robot. No frontier left: "exploration
finished" and Idle. No map or robot pose within ``map_timeout``: Idle with the reason.

:class:`FrontierGoals` is the search with this plugin's settings and its publisher; the
Navigation plugin uses it too, to keep the goals current while it drives to an exploration goal.
"""

from typing import List, Tuple

from geometry_msgs.msg import PoseArray
from robot_sm.exploration import Frontier, FrontierSearch, select_goal
from robot_sm.grid import OccupancyGrid
from robot_sm.parameters import duration, Param
from robot_sm.planar import Pose2D
from robot_sm.plugins.conversions import goal_pose, grid_from_msg, pose2d, pose_msg, stamp
from robot_sm.statemachine.behaviours import CalculateGoalState
from robot_sm.statemachine.calls import PendingCall
from robot_sm.statemachine.context import Context
from robot_sm.waypoints.pose import Pose

EXPLORATION_GOALS = 'robot_sm/exploration_goals'


class FrontierGoals:
    """
    The frontier search with a Calculate Goal plugin's settings, and the goals' publisher.

    ``plugin`` names the plugin whose ``min_frontier_size``, ``potential_scale`` and
    ``gain_scale`` are used; empty: the state's own (a Calculate Goal plugin's context).
    """

    def __init__(self, context: Context, plugin: str = '') -> None:
        prefix = f'{plugin}.' if plugin else ''
        self._context = context
        self.search = FrontierSearch(
            min_frontier_size=context.parameter(prefix + 'min_frontier_size'),
            potential_scale=context.parameter(prefix + 'potential_scale'),
            gain_scale=context.parameter(prefix + 'gain_scale'))
        self._publisher = context.publisher(EXPLORATION_GOALS, 'geometry_msgs/msg/PoseArray')

    def publish(self, grid: OccupancyGrid, robot: Pose2D) -> List[Frontier]:
        """Find the frontiers reachable from ``robot``, publish their goals, return them."""
        frontiers = self.search.search(grid, robot)
        msg = PoseArray()
        msg.header.frame_id = self._context.map_frame
        msg.header.stamp = stamp(self._context.ros_time())
        msg.poses = [pose_msg(frontier.goal(robot)) for frontier in frontiers]
        self._publisher.publish(msg)
        return frontiers


class CalculateGoal(CalculateGoalState):
    """Pick the best frontier as the next exploration goal."""

    NAME = 'Calculate Goal'
    PARAMETERS = (
        Param('pose_topic', 'odom', 'nav_msgs/Odometry topic with the robot pose in the map '
              'frame.'),
        Param('min_frontier_size', 0.3, 'Shortest frontier worth exploring (m).', minimum=0.0),
        Param('potential_scale', 3.0, 'Weight of the distance to a frontier (per m).'),
        Param('gain_scale', 1.0, 'Weight of the size of a frontier (per m).'),
        Param('blacklist_radius', 0.5, 'Frontier goals this close to a failed goal are skipped '
              '(m, Euclidean).', minimum=0.0),
        duration('map_timeout', 5.0, 'Time to wait for a map and a robot pose.', 0.1, 600.0),
    )

    def start(self) -> None:
        """Subscribe to the map and pose; ask for the failed goals."""
        context = self.context
        self._started = context.now()
        self._map = context.subscribe('map', 'nav_msgs/msg/OccupancyGrid', qos='state')
        self._pose = context.subscribe(context.parameter('pose_topic'),
                                       'nav_msgs/msg/Odometry', qos='sensor')
        self._failed: PendingCall[Tuple[Pose, ...]] = self.suite.failed_goals()
        self._frontiers = FrontierGoals(context)

    def update(self) -> None:
        """Choose a goal once the map, the pose and the failed goals are in."""
        context = self.context
        waited = context.now() - self._started
        if self._map.latest is None or self._pose.latest is None:
            if waited > context.parameter('map_timeout'):
                missing = 'map' if self._map.latest is None else 'robot pose'
                self.abort(f"no {missing} within {context.parameter('map_timeout'):g} s")
            return
        if not self._failed.done():
            return
        failed: List[Tuple[float, float]] = []
        if self._failed.ok and self._failed.response is not None:
            failed = [(p.x, p.y) for p in self._failed.response]
        else:
            context.logger.warning(f'no failed goals ({self._failed.describe()}): none skipped')
        robot = pose2d(self._pose.latest.pose.pose)
        frontiers = self._frontiers.publish(grid_from_msg(self._map.latest), robot)
        best = select_goal(frontiers, failed, context.parameter('blacklist_radius'))
        if best is None:
            skipped = f' ({len(frontiers)} near failed goals)' if frontiers else ''
            context.logger.info(f'exploration finished: no frontier left{skipped}')
            self.finish_exploration()
            return
        goal = best.goal(robot)
        context.logger.info(f'next goal ({goal.x:.2f}, {goal.y:.2f}): frontier of '
                            f'{best.size:.2f} m at {best.distance:.2f} m')
        self.navigate_to(goal_pose(goal))
