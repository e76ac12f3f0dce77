"""
Launch the robot_sm suite: robot_control_mux, service_provider and state_interface.

    ros2 launch robot_sm robot_sm.launch.py namespace:=robot1 params_file:=my_robot.yaml

Arguments: ``namespace`` (moves every node, topic and service of the suite), ``params_file``
(default ``config/robot_sm.yaml``; a file of your own replaces it, so start from a copy),
``remote`` (``true`` loads ``config/remote.yaml`` after it: the operator station on another
computer, the robot stops when its heartbeat is lost), ``use_sim_time``, and the plugin names
``navigation_plugin``, ``calculate_goal_plugin`` and ``mapping_plugin`` (empty: keep the
parameter file's value), ``discovery_server`` (``HOST:PORT`` of a Fast DDS discovery server:
every node becomes its client; empty: simple discovery), ``web`` (``true`` also serves the web
operator console, ``robot-sm web``, on 127.0.0.1:``web_port``, 8080; it prints its address with
the access token), ``recorder`` (``true``, the default, also runs the incident recorder,
``incident_recorder``, in a process of its own: ``robot-sm incidents``). Name the nodes in
parameter files
``/**/<node>`` so that the file applies in any namespace.
"""

from typing import Any, List

from ament_index_python.packages import get_package_share_directory
from launch import LaunchContext, LaunchDescription
from launch.actions import DeclareLaunchArgument, OpaqueFunction
from launch.substitutions import LaunchConfiguration
from launch_ros.actions import Node
from robot_sm.bringup.environment import discovery_server_problem
from robot_sm.bringup.suite_nodes import RECORDER, SUITE, web_console_process, WEB_PORT

PLUGIN_ARGUMENTS = ('navigation_plugin', 'calculate_goal_plugin', 'mapping_plugin')


def _nodes(context: LaunchContext, *_: Any) -> List[Any]:
    """Create the suite's nodes with the resolved arguments."""
    namespace = LaunchConfiguration('namespace').perform(context)
    params_file = LaunchConfiguration('params_file').perform(context)
    files = [params_file]
    if LaunchConfiguration('remote').perform(context).lower() == 'true':
        files.append(f"{get_package_share_directory('robot_sm')}/config/remote.yaml")
    use_sim_time = LaunchConfiguration('use_sim_time').perform(context).lower() == 'true'
    plugins = {name: LaunchConfiguration(name).perform(context) for name in PLUGIN_ARGUMENTS}
    server = LaunchConfiguration('discovery_server').perform(context)
    if server and discovery_server_problem(server):
        raise RuntimeError(f'discovery_server:={discovery_server_problem(server)}')
    environment = {'ROS_DISCOVERY_SERVER': server} if server else {}
    recorder = LaunchConfiguration('recorder').perform(context).lower() == 'true'
    nodes = []
    for spec in SUITE + (RECORDER if recorder else ()):
        overrides = {'use_sim_time': use_sim_time, **spec.parameters}
        if spec.executable == 'state_interface':
            overrides.update({name: value for name, value in plugins.items() if value})
        nodes.append(Node(
            package='robot_sm', executable=spec.executable, name=spec.executable,
            namespace=namespace, parameters=[*files, overrides],
            remappings=list(spec.remappings), additional_env=environment, output='screen',
            emulate_tty=True))
    if LaunchConfiguration('web').perform(context).lower() == 'true':
        nodes.append(web_console_process(namespace,
                                         LaunchConfiguration('web_port').perform(context),
                                         environment))
    return nodes


def generate_launch_description() -> LaunchDescription:
    """Declare the arguments and the nodes of the suite."""
    default_params = f"{get_package_share_directory('robot_sm')}/config/robot_sm.yaml"
    return LaunchDescription([
        DeclareLaunchArgument('namespace', default_value='',
                              description='Namespace of every node, topic and service'),
        DeclareLaunchArgument('params_file', default_value=default_params,
                              description='ROS parameter file for the suite (replaces the '
                                          'shipped config/robot_sm.yaml)'),
        DeclareLaunchArgument('remote', default_value='false',
                              description='Operator station on another computer: load '
                                          'config/remote.yaml after params_file'),
        DeclareLaunchArgument('use_sim_time', default_value='false',
                              description='Follow /clock instead of the system clock'),
        DeclareLaunchArgument('web', default_value='false',
                              description='Also serve the web operator console (robot-sm web; '
                                          'it prints its address with the access token)'),
        DeclareLaunchArgument('web_port', default_value=str(WEB_PORT),
                              description='Port of the web operator console (127.0.0.1)'),
        DeclareLaunchArgument('recorder', default_value='true',
                              description='Also run the incident recorder (robot-sm incidents)'),
        DeclareLaunchArgument('discovery_server', default_value='',
                              description='HOST:PORT of a Fast DDS discovery server for every '
                                          'node (empty: simple discovery)'),
        *[DeclareLaunchArgument(name, default_value='',
                                description=f'Plugin state for {name} (empty: the params file)')
          for name in PLUGIN_ARGUMENTS],
        OpaqueFunction(function=_nodes),
    ])
