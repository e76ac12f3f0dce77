"""One command at a time, in arrival order, for coroutines on an rclpy executor."""

from collections import deque
from typing import Deque

from rclpy.task import Future


class Turns:
    """One command at a time, in arrival order, awaiting its turn without blocking the executor."""

    def __init__(self) -> None:
        self._busy = False
        self._waiting: Deque[Future] = deque()

    async def take(self) -> None:
        """Wait until it is this caller's turn."""
        if not self._busy:
            self._busy = True
            return
        turn = Future()
        self._waiting.append(turn)
        await turn

    def give(self) -> None:
        """End this caller's turn; the next in line goes on."""
        if self._waiting:
            self._waiting.popleft().set_result(None)
        else:
            self._busy = False
