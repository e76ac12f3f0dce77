"""Install the robot_sm package: Python modules, ROS executables, launch and config files."""

from glob import glob

from setuptools import find_packages, setup

PACKAGE = 'robot_sm'

setup(
    name=PACKAGE,
    version='0.1.0',
    packages=find_packages(exclude=['test', 'test.*']),
    # The web console's page, served from the package.
    package_data={'robot_sm.frontends.web': ['static/*.html', 'static/*.css', 'static/js/*.js']},
    data_files=[
        ('share/ament_index/resource_index/packages', [f'resource/{PACKAGE}']),
        (f'share/{PACKAGE}', ['package.xml', 'plugin.xml']),
        # On PATH once the workspace is sourced (console scripts go to lib/robot_sm for ros2 run).
        ('bin', ['scripts/robot-sm']),
        (f'share/{PACKAGE}/launch', glob('launch/*.launch.py')),
        (f'share/{PACKAGE}/config',
         glob('config/*.yaml') + glob('config/*.rviz') + glob('config/*.urdf')
         + glob('config/*.npz')),
        (f'share/{PACKAGE}/config/worlds', glob('config/worlds/*')),
    ],
    install_requires=['setuptools'],
    zip_safe=True,
    maintainer='robot_sm maintainers',
    maintainer_email='robot_sm@example.org',
    description='Supervised operating cycle for mobile robots: state machine, mux, waypoints, '
                'teleop retargeting.',
    license='BSD-3-Clause',
    extras_require={'test': ['pytest', 'hypothesis']},
    entry_points={
        'console_scripts': [
            'base_controller = robot_sm.nodes.executables:base_controller',
            'robot-sm = robot_sm.frontends.command:entry_point',
            'incident_recorder = robot_sm.nodes.executables:incident_recorder',
            'robot_control_mux = robot_sm.nodes.executables:robot_control_mux',
            'robot_sim = robot_sm.nodes.executables:robot_sim',
            'service_provider = robot_sm.nodes.executables:service_provider',
            'state_interface = robot_sm.nodes.executables:state_interface',
            'teleop_retargeting = robot_sm.nodes.executables:teleop_retargeting',
            'topic_recorder = robot_sm.nodes.executables:topic_recorder',
            'xr_replay = robot_sm.nodes.executables:xr_replay',
        ],
        'ros2cli.command': ['robot_sm = robot_sm.frontends.cli:Ros2Command'],
        'robot_sm.states': [
            'Boot = robot_sm.statemachine.states:Boot',
            'CalculateGoal = robot_sm.plugins.exploration:CalculateGoal',
            'EmergencyStop = robot_sm.statemachine.states:EmergencyStop',
            'Idle = robot_sm.statemachine.states:Idle',
            'MappingDummy = robot_sm.plugins.mapping:MappingDummy',
            'Navigation = robot_sm.plugins.navigation:Navigation',
            'Paused = robot_sm.statemachine.states:Paused',
            'ReversingRoutine = robot_sm.plugins.routines:ReversingRoutine',
            'Spin = robot_sm.plugins.mapping:Spin',
            'Teleoperation = robot_sm.statemachine.states:Teleoperation',
            'WaitRoutine = robot_sm.plugins.routines:WaitRoutine',
            'WaypointFollowing = robot_sm.statemachine.states:WaypointFollowing',
        ],
    },
)
