"""The mux core's tests share: velocities, a clock moving only when told, muxes to start from."""

from typing import Any

from robot_sm.mux import ControlMux, Mode, MuxConfig, Velocity

FORWARD = Velocity(0.5, 0.0, 0.0, 0.0, 0.0, 0.2)
BACKWARD = Velocity(-0.3)
TURN = Velocity(angular_z=1.0)


class FakeClock:
    """Time that moves only when told to."""

    def __init__(self) -> None:
        self.now = 100.0

    def advance(self, seconds: float) -> float:
        self.now += seconds
        return self.now


def make_mux(clock: FakeClock, **config: Any) -> ControlMux:
    """
    Return a mux in STOPPED after an operator selected STOPPED (inputs may take over).

    With a heartbeat watchdog, the operator's first heartbeat comes at the start.
    """
    mux = ControlMux(MuxConfig(**config), clock.now)
    if mux.operator_heartbeat is not None:  # modes are refused until the operator is heard
        mux.heartbeat(False, clock.now)
    assert mux.set_mode(Mode.STOPPED, clock.now).success
    return mux


def autonomous(clock: FakeClock, **config: Any) -> ControlMux:
    mux = make_mux(clock, **config)
    assert mux.set_mode(Mode.AUTONOMOUS, clock.now).success
    return mux
