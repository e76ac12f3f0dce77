"""
The incident recorder as a child of ``robot-sm up``: stopped by ``up``, quietly, at any moment.

A terminal's Ctrl-C reaches every process of its group, and one that arrives while Python itself
starts interrupts its imports with a traceback. So ``robot-sm up`` starts this process with
SIGINT ignored, hears the Ctrl-C itself and stops it with SIGTERM, whose default action ends it
at once while it starts. Its first line takes SIGINT back (a Ctrl-C sent to it alone stops it);
from ``rclpy.init`` on it stops as every node does, writing the incidents still open.
"""

import signal


def main() -> None:
    """Run the incident recorder with this process's command line."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    from robot_sm.nodes.incident_recorder import main as run_recorder
    run_recorder()


if __name__ == '__main__':
    main()
