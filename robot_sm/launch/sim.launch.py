"""
Launch the suite on the built-in simulation, optionally with RViz.

    ros2 launch robot_sm sim.launch.py world:=maze reveal_map:=true rviz:=true

Starts the suite's nodes (as robot_sm.launch.py does) with ``config/robot_sm.yaml``, then
``config/sim.yaml``, then ``config/remote.yaml`` with ``remote:=true`` (the operator station on
another computer), then ``params_file`` if given, and the simulated robot: base_controller
(cmd_vel -> wheel velocities) and robot_sim. In RViz the "2D Goal Pose" tool sends simple goals
(``goal_pose`` is remapped to ``robot_sm/simple_goal``) and "Publish Point" adds waypoints.
With ``rviz:=true`` and no rviz2 installed, nothing is started.
"""

from typing import Any, List

from ament_index_python.packages import get_package_share_directory
from launch import LaunchContext, LaunchDescription
from launch.actions import DeclareLaunchArgument, OpaqueFunction
from launch.conditions import IfCondition
from launch.substitutions import LaunchConfiguration
from launch_ros.actions import Node
from robot_sm.bringup import rviz_refusal, SIMULATION, SUITE


def _nodes(context: LaunchContext, *_: Any) -> List[Node]:
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
    nodes = []
    for spec in SUITE + SIMULATION:
        overrides = dict(spec.parameters)
        if spec.executable == 'robot_sim':
            overrides.update({'world': world, 'reveal_map': reveal})
        nodes.append(Node(
            package='robot_sm', executable=spec.executable, name=spec.executable,
            namespace=namespace, parameters=[*files, overrides] if overrides else files,
            remappings=list(spec.remappings), output='screen', emulate_tty=True))
    nodes.append(Node(
        package='rviz2', executable='rviz2', name='rviz2', namespace=namespace,
        arguments=['-d', f'{share}/config/robot_sm.rviz'],
        remappings=[('goal_pose', 'robot_sm/simple_goal')],
        condition=rviz))
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
        OpaqueFunction(function=_nodes),
    ])
