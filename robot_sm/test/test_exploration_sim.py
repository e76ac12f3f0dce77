"""
Exploration over real DDS: the maze world from an unknown map, in finish and interrupt modes.

The suite and the simulation run as in the demo's second phase: the simulated range sensor
reveals the map, Calculate Goal picks frontiers, Navigation drives to them.
"""

import time
from typing import Iterator, Optional, Tuple

import numpy as np
import pytest
from robot_sm import qos
from robot_sm.testing import RosHarness, wait_until
from robot_sm_msgs.srv import GetNavigationGoal
from scipy import ndimage
from std_msgs.msg import Bool
from std_srvs.srv import SetBool
from test_suite_sim import SimSuite, TICK, TRANSPORT

MAZE_START = (0.5, 0.5)


def maze(ros: RosHarness) -> SimSuite:
    return SimSuite(ros, {
        'state_interface': {'mapping_plugin': 'MappingDummy'},
        'robot_sim': {'world': 'maze', 'start_x': MAZE_START[0], 'start_y': MAZE_START[1],
                      'reveal_map': True, 'sensor_range': 2.5},
    })


@pytest.fixture
def sim(ros: RosHarness) -> Iterator[SimSuite]:
    suite = maze(ros)
    try:
        yield suite
    finally:
        suite.close()


def start_exploration(sim: SimSuite, interrupt: bool) -> None:
    response = sim.ros.call(SetBool, 'robot_sm/set_exploration_mode',
                            SetBool.Request(data=interrupt))
    assert response.success, response.message
    sim.autonomy_mode()
    response = sim.ros.call(SetBool, 'robot_sm/start_stop_exploration',
                            SetBool.Request(data=True))
    assert (response.success, response.message) == (True, 'Exploration started')


def seen_of_reachable(sim: SimSuite) -> float:
    """Return the fraction of the free space connected to the start that the sensor has seen."""
    node = sim.process.nodes['robot_sim']
    world = node.world
    labels, _ = ndimage.label(world.free())
    reachable = labels == labels[world.cell_of(*MAZE_START)]
    seen = reachable & (node.known.data >= 0)
    return float(np.count_nonzero(seen) / np.count_nonzero(reachable))


def test_exploration_reveals_the_maze_and_ends_in_idle(sim: SimSuite) -> None:
    outcomes = sim.ros.record(type(sim.states.messages[0]), 'robot_sm/state_outcome',
                              qos.STATE)
    start_exploration(sim, interrupt=False)
    started = time.monotonic()
    sim.wait_state('E: Navigation', after=started)
    sim.wait_state('Idle', after=started, timeout=150.0)
    outcomes.wait_for(lambda m: m.data == 'E: Calculate Goal: exploration finished',
                      after=started)
    assert seen_of_reachable(sim) >= 0.95


def goal_position(sim: SimSuite) -> Tuple[float, float]:
    goal = sim.ros.call(GetNavigationGoal, 'robot_sm/get_navigation_goal')
    assert goal.navigation_mode == 0  # EXPLORATION
    return goal.goal.position.x, goal.goal.position.y


def test_interrupt_mode_abandons_an_obsolete_goal_within_a_tick_for_a_new_one(
        sim: SimSuite) -> None:
    obsolete = sim.ros.record(Bool, 'robot_sm/goal_obsolete', qos.STATE)
    start_exploration(sim, interrupt=True)
    started = time.monotonic()
    sim.wait_state('E: Navigation', after=started)

    def navigating_when_flagged() -> Optional[Tuple[float, float]]:
        """Return (flag time, navigation start) of the first flag raised during a navigation."""
        states = sim.states.stamped
        for flag_time, flag in obsolete.stamped:
            if not flag.data or flag_time < started:
                continue
            before = [(t, m.data) for t, m in states if t <= flag_time]
            if before and before[-1][1] == 'E: Navigation':
                return flag_time, before[-1][0]
        return None

    assert wait_until(lambda: navigating_when_flagged() is not None, 60.0)
    found = navigating_when_flagged()
    assert found is not None
    flagged, _ = found
    # The navigation ends on its next tick: to Mapping (it moved) or Calculate Goal.
    sim.states.wait_for(lambda m: m.data != 'E: Navigation', after=flagged, timeout=2.0)
    left, next_state = next((t, m.data) for t, m in sim.states.stamped
                            if t >= flagged and m.data != 'E: Navigation')
    assert next_state in ('E: Mapping Dummy', 'E: Calculate Goal')
    assert left - flagged < TICK + TRANSPORT
    # A new goal is chosen and stored: the service provider clears the flag for it, and the
    # new goal lies within exploration_goal_tolerance of a current frontier goal.
    resumed = sim.wait_state('E: Navigation', after=left)
    assert resumed - left < 1.0
    obsolete.wait_for(lambda m: not m.data, after=left, timeout=2.0)
    assert goal_position(sim) is not None
    response = sim.ros.call(SetBool, 'robot_sm/start_stop_exploration',
                            SetBool.Request(data=False))
    assert (response.success, response.message) == (True, 'Exploration stopped')
