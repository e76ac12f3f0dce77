"""
Launch arm teleoperation: teleop_retargeting with the shipped SO-101-class arm model.

    ros2 launch robot_sm teleop.launch.py urdf_path:=/path/to/arm.urdf params_file:=teleop.yaml
"""

from typing import Any, List

from launch import LaunchContext, LaunchDescription
from launch.actions import DeclareLaunchArgument, OpaqueFunction
from launch.substitutions import LaunchConfiguration
from launch_ros.actions import Node
from robot_sm.bringup.suite_nodes import TELEOP


def _nodes(context: LaunchContext, *_: Any) -> List[Node]:
    """Create the teleop node with the resolved arguments."""
    params_file = LaunchConfiguration('params_file').perform(context)
    files = [params_file] if params_file else []
    urdf_path = LaunchConfiguration('urdf_path').perform(context)
    nodes = []
    for spec in TELEOP:
        overrides = {**spec.parameters, **({'urdf_path': urdf_path} if urdf_path else {})}
        nodes.append(Node(
            package='robot_sm', executable=spec.executable, name=spec.executable,
            namespace=LaunchConfiguration('namespace').perform(context),
            parameters=[*files, overrides] if overrides else files,
            remappings=list(spec.remappings), output='screen', emulate_tty=True))
    return nodes


def generate_launch_description() -> LaunchDescription:
    """Declare the arguments and the teleop node."""
    return LaunchDescription([
        DeclareLaunchArgument('namespace', default_value='',
                              description='Namespace of the node and its topics'),
        DeclareLaunchArgument('urdf_path', default_value='',
                              description='Arm URDF (default: the shipped SO-101-class arm)'),
        DeclareLaunchArgument('params_file', default_value='',
                              description='Parameter file for teleop_retargeting'),
        OpaqueFunction(function=_nodes),
    ])
