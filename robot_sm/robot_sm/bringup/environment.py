"""What the suite's processes take from the machine: how DDS discovers, whether RViz is there."""

import os
from typing import Optional


def rviz_refusal() -> Optional[str]:
    """
    Return why RViz cannot be started (rviz2 is not installed), or None if it can.

    ``sim.launch.py rviz:=true`` asks before it starts anything: a launch that fails on its last
    node leaves the others running.
    """
    from ament_index_python.packages import get_package_prefix, PackageNotFoundError
    try:
        get_package_prefix('rviz2')
    except PackageNotFoundError:
        return ('rviz:=true, but rviz2 is not installed (install ros-$ROS_DISTRO-rviz2, or leave '
                'rviz:=false): nothing was started')
    return None


def use_discovery_server(address: str, super_client: bool = False) -> None:
    """
    Choose how the DDS participants this process (and its children) creates find each other.

    They become clients of the discovery server at ``address``, or use simple discovery when
    ``address`` is ''. ``address`` is ``HOST:PORT`` (several separated by ``;``), as
    ``ROS_DISCOVERY_SERVER`` takes it; a ``super_client`` (a tool) sees the whole graph, a plain
    client (a robot's node) only what it uses.
    """
    for name in ('ROS_DISCOVERY_SERVER', 'ROS_SUPER_CLIENT'):
        os.environ.pop(name, None)
    if address:
        os.environ['ROS_DISCOVERY_SERVER'] = address
        if super_client:
            os.environ['ROS_SUPER_CLIENT'] = 'true'


def discovery_server_problem(address: str) -> Optional[str]:
    """Return why ``address`` is not a discovery server list (``HOST:PORT;...``), or None."""
    for entry in address.split(';'):
        host, _, port = entry.strip().rpartition(':')
        if not host or not port.isdigit() or not 0 < int(port) < 65536:
            return f'{address!r} is not HOST:PORT (e.g. 127.0.0.1:11811)'
    return None
