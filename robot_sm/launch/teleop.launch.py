"""
Launch arm teleoperation: teleop_retargeting with the shipped SO-101-class arm model.

    ros2 launch robot_sm teleop.launch.py urdf_path:=/path/to/arm.urdf params_file:=teleop.yaml
"""

from launch import LaunchDescription
from launch.actions import DeclareLaunchArgument, OpaqueFunction
from launch.substitutions import LaunchConfiguration
from launch_ros.actions import Node
from robot_sm.bringup import TELEOP


def _nodes(context, *args, **kwargs):
    """Create the teleop node with the resolved arguments."""
    parameters = []
    params_file = LaunchConfiguration('params_file').perform(context)
    if params_file:
        parameters.append(params_file)
    urdf_path = LaunchConfiguration('urdf_path').perform(context)
    if urdf_path:
        parameters.append({'urdf_path': urdf_path})
    return [Node(package='robot_sm', executable=spec.executable, name=spec.executable,
                 namespace=LaunchConfiguration('namespace').perform(context),
                 parameters=parameters, output='screen', emulate_tty=True)
            for spec in TELEOP]


def generate_launch_description() -> LaunchDescription:
    """Declare the arguments and the teleop node."""
    return LaunchDescription([
        DeclareLaunchArgument('namespace', default_value=''),
        DeclareLaunchArgument('urdf_path', default_value='',
                              description='Arm URDF (default: the shipped SO-101-class arm)'),
        DeclareLaunchArgument('params_file', default_value='',
                              description='Parameter file for teleop_retargeting'),
        OpaqueFunction(function=_nodes),
    ])
