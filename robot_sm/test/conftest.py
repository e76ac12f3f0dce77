"""
Fixtures shared by the tests of robot_sm.

Node tests use the ``ros`` fixture: a :class:`robot_sm.testing.RosHarness` with its own rclpy
context and a namespace of its own, so tests never see each other's topics even though they share
the DDS domain that ``make test`` chose. The harness is shut down after each test and the test
fails if it leaves a thread running. Tests of the running suite start it with ``start_suite``
(a :class:`robot_sm.bringup.running_suite.RunningSuite` in the harness's context and namespace), or
``start_scripted`` and ``suite`` for the suite without a robot (navigation is the test package's
``ScriptedNavigation``).

Files the nodes keep under ``$ROS_HOME`` (the waypoint list, the latched e-stop) go to a
temporary folder for the whole session, inherited by every node process a test starts: tests
never read or write the user's ``~/.ros``. ``robot-sm`` commands run without the daemon
(``ROBOT_SM_NO_DAEMON``), as each test expects of a command; ``test_cli_daemon.py`` runs them
through daemons in a socket folder of each test's own, and stops them.

Fast DDS delivers between two participants of one process by direct calls (intra-process
delivery), and with several participants in a process, which every node test has (the harness,
each node's context, clients), a participant's teardown can deadlock on that path
(eProsima/Fast-DDS#6193: the main thread waits in ``ResourceEvent::unregister_timer`` for an event
thread that waits for a lock the main thread holds). The tests turn it off
(``test/fixtures/fastdds_no_intraprocess.xml``): participants talk through the transports, as the
suite's processes do on a robot.
"""

import gc
import itertools
import os
import pathlib
import shutil
import sys
import tempfile
import threading
from typing import Any, Dict, Iterator, List, Optional

from operator_suite import cli_command, scripted, StartSuite
import pytest

from robot_sm.bringup.running_suite import RunningSuite
from robot_sm.testing import RosHarness
from robot_sm.testing.private_daemons import PrivateDaemons
from robot_sm.testing.ros_domain import claim_ros_domain
from robot_sm.testing.two_host_rig import (
    TwoHostRig,
    unavailable_reason as two_host_rig_unavailable_reason,
)

_namespaces = itertools.count()

#: A plugin package installed the way robot packages are (a module and its entry points).
TEST_PLUGINS = pathlib.Path(__file__).parent / 'fixtures' / 'plugins'
sys.path.insert(0, str(TEST_PLUGINS))


#: Fast DDS settings for every participant the tests create, in this process and in children.
FASTDDS_PROFILE = pathlib.Path(__file__).parent / 'fixtures' / 'fastdds_no_intraprocess.xml'

#: This process's folder: its ROS_HOME and its temporary files, removed at the end.
_session_folder = tempfile.mkdtemp(prefix='robot_sm-test-')


def pytest_configure(config: pytest.Config) -> None:
    """
    Keep DDS discovery on this machine, each test process's files in a folder of its own.

    robot-sm commands run without the daemon (ROBOT_SM_NO_DAEMON) unless a test gives them one.

    A worker of a parallel run (pytest-xdist) also claims a ROS domain of its own, so that the
    workers' nodes never meet; its temporary files, ROS_HOME and XDG_RUNTIME_DIR are its own
    too.
    """
    if os.environ.get('ROS_AUTOMATIC_DISCOVERY_RANGE') != 'LOCALHOST':
        os.environ['ROS_AUTOMATIC_DISCOVERY_RANGE'] = 'LOCALHOST'
    if os.environ.get('PYTEST_XDIST_WORKER'):
        os.environ['ROS_DOMAIN_ID'] = str(claim_ros_domain())
    folder = pathlib.Path(_session_folder)
    for name in ('ros_home', 'tmp', 'run'):
        (folder / name).mkdir(mode=0o700, exist_ok=True)
    os.environ['ROS_HOME'] = str(folder / 'ros_home')
    # The folder of robot-sm's daemons, and of the robots fleet commands saw (client.roster).
    os.environ['XDG_RUNTIME_DIR'] = str(folder / 'run')
    os.environ['TMPDIR'] = str(folder / 'tmp')
    tempfile.tempdir = None  # taken from TMPDIR again
    # robot-sm commands run by themselves; test_cli_daemon.py runs them through the daemon.
    os.environ['ROBOT_SM_NO_DAEMON'] = '1'
    os.environ['FASTRTPS_DEFAULT_PROFILES_FILE'] = str(FASTDDS_PROFILE)


def pytest_unconfigure(config: pytest.Config) -> None:
    """Remove the process's ROS_HOME and temporary files."""
    shutil.rmtree(_session_folder, ignore_errors=True)


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config: pytest.Config, items: List[pytest.Item]) -> None:
    """
    Keep the tests of one ``xdist_group`` on one worker (``--dist loadgroup``, make test).

    pytest-xdist names a grouped test ``ID@GROUP`` for its scheduler by setting ``_nodeid``,
    which pytest 9 no longer reads (it keeps the id in ``_id``): without this every test went
    to any worker, and tests that follow one another (the two-host rig, the browser's page)
    ran apart.
    """
    if not getattr(config.option, 'loadgroup', False):
        return
    from _pytest.nodeid import coerce_node_id
    for item in items:
        groups = {str(mark.args[0] if mark.args else mark.kwargs.get('name', 'default'))
                  for mark in item.iter_markers('xdist_group')}
        if groups and '@' not in item.nodeid:
            item._id = coerce_node_id(f"{item.nodeid}@{'_'.join(sorted(groups))}")


@pytest.fixture
def ros() -> Iterator[RosHarness]:
    """Give a test an isolated rclpy context, a probe node and a namespace of its own."""
    before = set(threading.enumerate())
    harness = RosHarness(namespace=f'/t{os.getpid()}_{next(_namespaces)}')
    try:
        yield harness
    finally:
        harness.shutdown()  # which collects what the test left
        # What survives is frozen, so that the next test's collection reads only its own.
        gc.freeze()
    leftover = [t for t in threading.enumerate()
                if t not in before and t.is_alive() and not t.daemon]
    assert not leftover, f'threads left running: {leftover}'


@pytest.fixture
def start_suite(ros: RosHarness) -> Iterator[StartSuite]:
    """
    Start a suite in the test's context and namespace (RunningSuite's keywords).

    ``namespace`` starts it elsewhere (a robot of a fleet: ``f'{ros.namespace}/robot1'``).
    """
    started: List[RunningSuite] = []

    def start(**options: Any) -> RunningSuite:
        suite = RunningSuite(**{'namespace': ros.namespace, 'context': ros.context, **options})
        started.append(suite)
        return suite

    try:
        yield start
    finally:
        for suite in reversed(started):
            suite.close()


@pytest.fixture
def start_scripted(start_suite: StartSuite) -> StartSuite:
    """Start the suite with ScriptedNavigation; the argument: state interface parameters."""
    def start(state_interface: Optional[Dict[str, Any]] = None, **options: Any) -> RunningSuite:
        return start_suite(parameters=scripted(state_interface), **options)

    return start


@pytest.fixture
def suite(start_scripted: StartSuite) -> RunningSuite:
    """Start the suite with ScriptedNavigation (4 ticks a goal), no robot."""
    return start_scripted()


@pytest.fixture
def daemons() -> Iterator[PrivateDaemons]:
    """Give the test's commands a socket folder of their own; stop every daemon started there."""
    private = PrivateDaemons()
    try:
        yield private
    finally:
        private.close(cli_command())


@pytest.fixture(scope='module')
def cli_daemon() -> Iterator[PrivateDaemons]:
    """
    Run the module's ``robot-sm`` commands through a daemon, as an operator's commands run.

    The daemon's socket folder is the module's own, and every daemon started there is stopped
    when the module ends. (Elsewhere commands run by themselves: ``ROBOT_SM_NO_DAEMON``.)
    """
    daemons = PrivateDaemons()
    saved = {name: os.environ.get(name) for name in daemons.env}
    os.environ.update(daemons.env)
    try:
        yield daemons
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
        daemons.close(cli_command())


@pytest.fixture(scope='module')
def two_host_rig() -> Iterator[TwoHostRig]:
    """
    Give a test module a robot and an operator host joined by a link (testing.two_host_rig).

    Skips, saying why, where root or ``ip netns`` are missing. Every process the rig started is
    stopped and its namespaces are deleted when the module ends, whatever happened.
    """
    reason = two_host_rig_unavailable_reason()
    if reason:
        pytest.skip(reason)
    rig = TwoHostRig()
    try:
        yield rig
    finally:
        rig.close()
