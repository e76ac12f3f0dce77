"""Install the robot_sm package: Python modules, ROS executables, launch and config files."""

from glob import glob

from setuptools import find_packages, setup

PACKAGE = 'robot_sm'

setup(
    name=PACKAGE,
    version='0.1.0',
    packages=find_packages(exclude=['test', 'test.*']),
    data_files=[
        ('share/ament_index/resource_index/packages', [f'resource/{PACKAGE}']),
        (f'share/{PACKAGE}', ['package.xml']),
        (f'share/{PACKAGE}/launch', glob('launch/*.launch.py')),
        (f'share/{PACKAGE}/config', glob('config/*.yaml')),
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
            'robot_control_mux = robot_sm.nodes.robot_control_mux:main',
        ],
        'robot_sm.states': [
        ],
    },
)
