"""
``robot-sm``'s entry point: the daemon first; the parser and the command here only without it.

The command line goes to the daemon as it is (:func:`robot_sm.frontends.daemon.client.ask_daemon`),
which parses it with ``robot-sm``'s own parser. Only when the daemon does not do the command is
the parser built here and the command run in this process (:func:`robot_sm.frontends.cli.main`),
which then starts a daemon if none runs. Up to the daemon's answer this imports neither rclpy nor
the parser.
"""

import os
import signal
import sys
from typing import List, Optional

from robot_sm.frontends.daemon import client
from robot_sm.nodes.quiet_signals import quiet_on_signals, stop_requested

#: Options whose value is a file: the daemon runs in another folder, so they go to it absolute.
FILE_OPTIONS = ('--fleet',)


def with_absolute_files(words: List[str]) -> List[str]:
    """Return ``words`` with the file of every :data:`FILE_OPTIONS` option made absolute."""
    absolute: List[str] = []
    file_next = False
    for word in words:
        name, equals, value = word.partition('=')
        if file_next:
            word = os.path.abspath(word)
        elif equals and name in FILE_OPTIONS:
            word = f'{name}={os.path.abspath(value)}'
        file_next = word in FILE_OPTIONS
        absolute.append(word)
    return absolute


def main(argv: Optional[List[str]] = None) -> int:
    """Run the robot-sm command line ``argv`` (default: this process's); return its exit code."""
    words = sys.argv[1:] if argv is None else list(argv)
    done = client.ask_daemon(with_absolute_files(words))
    if isinstance(done, int):
        return done
    from robot_sm.frontends import cli
    return cli.main(words, start_daemon=done == client.MISSING)


def entry_point() -> None:
    """Console script entry point; SIGINT and SIGTERM end a command quietly, exit code 0."""
    quiet_on_signals(interrupt=True)
    try:
        code = main()
        sys.stdout.flush()
    except BrokenPipeError:
        end_as_the_pipe_did()
    except BaseException:  # noqa: B902 - what a stop signal cut short (an import, a wait)
        if not stop_requested():
            raise
        code = 0
    sys.exit(code)


def end_as_the_pipe_did() -> None:
    """
    End by SIGPIPE, as Unix tools do when the reader has gone (``robot-sm status | head -2``).

    Python ignores SIGPIPE and raises BrokenPipeError instead; unhandled, it prints a traceback.
    The shell reports this end as 141, and a pipeline takes it for the normal end it is.
    """
    os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # nothing left to flush
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    os.kill(os.getpid(), signal.SIGPIPE)
