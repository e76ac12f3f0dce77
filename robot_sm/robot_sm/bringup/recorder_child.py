"""
The incident recorder as a child of ``robot-sm up``: it ends quietly on a Ctrl-C while it starts.

A terminal's Ctrl-C reaches every process of its group. ``robot-sm up`` starts this one with
SIGINT ignored (a Ctrl-C while Python itself starts would interrupt its imports with a traceback)
and stops it with SIGINTs of its own. From its first line until rclpy takes SIGINT over (in
``rclpy.init``), the signal's default action ends it without Python's KeyboardInterrupt
traceback; from then on it stops as every node does, writing what is open.
"""

import signal


def main() -> None:
    """Run the incident recorder with this process's command line."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    from robot_sm.nodes.incident_recorder import main as run_recorder
    run_recorder()


if __name__ == '__main__':
    main()
