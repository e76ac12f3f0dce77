"""Install the robot_sm_control package: the controller library, pure Python and numpy."""

from setuptools import find_packages, setup

PACKAGE = 'robot_sm_control'

setup(
    name=PACKAGE,
    version='0.1.0',
    packages=find_packages(exclude=['test', 'test.*']),
    data_files=[
        ('share/ament_index/resource_index/packages', [f'resource/{PACKAGE}']),
        (f'share/{PACKAGE}', ['package.xml']),
    ],
    install_requires=['setuptools'],
    zip_safe=True,
    maintainer='robot_sm maintainers',
    maintainer_email='robot_sm@example.org',
    description='Composable controllers in numpy, without ROS.',
    license='BSD-3-Clause',
    extras_require={'test': ['pytest']},
)
