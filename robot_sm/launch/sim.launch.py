"""
Launch the suite on the built-in simulation, optionally with RViz.

    ros2 launch robot_sm sim.launch.py world:=maze reveal_map:=true rviz:=true

Starts the suite's nodes (as robot_sm.launch.py does) with ``config/robot_sm.yaml``, then
``config/sim.yaml``, then ``config/remote.yaml`` with ``remote:=true`` (the operator station on
another computer), then ``params_file`` if given, and the simulated robot: base_controller
(cmd_vel -> wheel velocities) and robot_sim. In RViz the "2D Goal Pose" tool sends simple goals
(``goal_pose`` is remapped to ``robot_sm/simple_goal``) and "Publish Point" adds waypoints.
With ``rviz:=true`` and no rviz2 installed, nothing is started.

``robots:=N`` simulates a fleet instead: N suites (with their base_controller) in
``namespace/robot1`` ... ``robotN`` and one robot_sim for all of them, in ``namespace``; the
robots start at the world's ``start_poses`` (RViz then shows robot1).
``web:=true`` also serves the web operator console (``robot-sm web`` on 127.0.0.1:``web_port``,
8080) for the robot (robot1 of a fleet); it prints its address with the access token.
``recorder:=false`` leaves out the incident recorder (``incident_recorder``, one per robot, each
in a process of its own: ``robot-sm incidents``).
``discovery_server:=HOST:PORT`` makes every node a client of that Fast DDS discovery server
(``ROS_DISCOVERY_SERVER``; start one with ``fastdds discovery -i 0``).
"""

from typing import Any, List

from ament_index_python.packages import get_package_share_directory
from launch import LaunchContext, LaunchDescription
from launch.actions import DeclareLaunchArgument, OpaqueFunction
from launch.conditions import IfCondition
from launch.substitutions import LaunchConfiguration
from launch_ros.actions import Node
from robot_sm.bringup.environment import discovery_server_problem, rviz_refusal
from robot_sm.bringup.suite_nodes import (
    fleet_names,
    join_namespace,
    RECORDER,
    ROBOT_NODES,
    SIMULATION,
    SIMULATOR,
    SUITE,
    web_console_process,
    WEB_PORT,
)


def _nodes(context: LaunchContext, *_: Any) -> List[Any]:
    """Create the suite, the simulation and RViz with the resolved arguments."""
    rviz = IfCondition(LaunchConfiguration('rviz'))
    refusal = rviz_refusal() if rviz.evaluate(context) else None
    if refusal:
        raise RuntimeError(refusal)
    share = get_package_share_directory('robot_sm')
    namespace = LaunchConfiguration('namespace').perform(context)
    files = [f'{share}/config/robot_sm.yaml', f'{share}/config/sim.yaml']
    if LaunchConfiguration('remote').perform(context).lower() == 'true':
        files.append(f'{share}/config/remote.yaml')
    extra = LaunchConfiguration('params_file').perform(context)
    if extra:
        files.append(extra)
    world = LaunchConfiguration('world').perform(context)
    reveal = LaunchConfiguration('reveal_map').perform(context).lower() == 'true'
    robots = int(LaunchConfiguration('robots').perform(context) or '0')
    server = LaunchConfiguration('discovery_server').perform(context)
    if server and discovery_server_problem(server):
        raise RuntimeError(f'discovery_server:={discovery_server_problem(server)}')
    environment = {'ROS_DISCOVERY_SERVER': server} if server else {}
    sim = {'world': world, 'reveal_map': reveal}
    recorder = LaunchConfiguration('recorder').perform(context).lower() == 'true'
    suite = SUITE + (RECORDER if recorder else ())
    if robots > 0:
        names = fleet_names(robots)
        groups = [(suite + ROBOT_NODES, join_namespace(namespace, name)) for name in names]
        groups.append((SIMULATOR, namespace))
        sim['robots'] = names
        rviz_namespace = join_namespace(namespace, names[0])
    else:
        groups = [(suite + SIMULATION, namespace)]
        rviz_namespace = namespace
    nodes = []
    for specs, group_namespace in groups:
        for spec in specs:
            overrides = dict(spec.parameters)
            if spec.executable == 'robot_sim':
                overrides.update(sim)
            nodes.append(Node(
                package='robot_sm', executable=spec.executable, name=spec.executable,
                namespace=group_namespace,
                parameters=[*files, overrides] if overrides else files,
                remappings=list(spec.remappings), additional_env=environment,
                output='screen', emulate_tty=True))
    nodes.append(Node(
        package='rviz2', executable='rviz2', name='rviz2', namespace=rviz_namespace,
        arguments=['-d', f'{share}/config/robot_sm.rviz'],
        remappings=[('goal_pose', 'robot_sm/simple_goal')],
        condition=rviz))
    if LaunchConfiguration('web').perform(context).lower() == 'true':
        nodes.append(web_console_process(rviz_namespace,
                                         LaunchConfiguration('web_port').perform(context),
                                         environment))
    return nodes


def generate_launch_description() -> LaunchDescription:
    """Declare the arguments, the suite and the simulation."""
    return LaunchDescription([
        DeclareLaunchArgument('namespace', default_value='',
                              description='Namespace of every node, topic and service'),
        DeclareLaunchArgument('world', default_value='office',
                              description='Shipped world (office, maze) or a map YAML path'),
        DeclareLaunchArgument('reveal_map', default_value='false',
                              description='Publish only what the simulated sensor has seen'),
        DeclareLaunchArgument('params_file', default_value='',
                              description='Extra parameter file, loaded last'),
        DeclareLaunchArgument('remote', default_value='false',
                              description='Operator station on another computer: load '
                                          'config/remote.yaml'),
        DeclareLaunchArgument('rviz', default_value='false', description='Start RViz'),
        DeclareLaunchArgument('robots', default_value='0',
                              description='Simulate a fleet of this many robots, each in '
                                          'namespace/robotK (0: one robot in namespace)'),
        DeclareLaunchArgument('web', default_value='false',
                              description='Also serve the web operator console (robot-sm web; '
                                          'it prints its address with the access token)'),
        DeclareLaunchArgument('web_port', default_value=str(WEB_PORT),
                              description='Port of the web operator console (127.0.0.1)'),
        DeclareLaunchArgument('recorder', default_value='true',
                              description='Also run the incident recorder of each robot '
                                          '(robot-sm incidents)'),
        DeclareLaunchArgument('discovery_server', default_value='',
                              description='HOST:PORT of a Fast DDS discovery server for every '
                                          'node (empty: simple discovery)'),
        OpaqueFunction(function=_nodes),
    ])
