"""The shipped XR session: made reproducibly, and it exercises everything the teleop core does."""

import pathlib
from typing import List, Tuple

import numpy as np
import pytest
from robot_sm.teleop.arm_teleop import ArmTeleop, TeleopSettings
from robot_sm.teleop.controller import ControllerSample
from robot_sm.teleop.execution import ExecutionState
from robot_sm.teleop.ik import PositionIk
from robot_sm.xr.scripted_operator import record_session
from robot_sm.xr.session import AXES, BUTTONS, HandTrack, SessionFileError, XrSession

CONFIG = pathlib.Path(__file__).resolve().parents[1] / 'config'
SHIPPED = CONFIG / 'xr_session.npz'


def sample(session: XrSession, hand: str, index: int) -> ControllerSample:
    track = session.hands[hand]
    buttons = dict(zip(BUTTONS, track.buttons[index]))
    axes = dict(zip(AXES, track.axes[index]))
    return ControllerSample(
        grip_position=track.position[index], grip_orientation=track.orientation[index],
        grip_is_valid=bool(track.tracked[index]), primary_click=buttons['primary'],
        secondary_click=buttons['secondary'], thumbstick_click=buttons['thumbstick_click'],
        thumbstick_x=axes['thumbstick_x'], thumbstick_y=axes['thumbstick_y'],
        trigger_value=axes['trigger'], squeeze_value=axes['squeeze'])


def test_the_shipped_file_is_what_the_scripted_operator_records() -> None:
    shipped, again = XrSession.load(SHIPPED), record_session()
    assert len(shipped) == len(again) > 3000 and shipped.frame_id == again.frame_id
    assert np.array_equal(shipped.time, again.time)
    assert np.allclose(np.diff(shipped.time), 1.0 / 90.0)
    for hand in ('left', 'right'):
        for field in ('position', 'orientation', 'tracked', 'buttons', 'axes'):
            assert np.allclose(getattr(shipped.hands[hand], field),
                               getattr(again.hands[hand], field), atol=1e-6), (hand, field)
    assert SHIPPED.stat().st_size < 150_000


def test_the_session_exercises_run_pause_kill_reset_clutch_roll_and_gripper() -> None:
    session = XrSession.load(SHIPPED)
    ik = PositionIk.from_urdf_file(str(CONFIG / 'so101_arm.urdf'),
                                   initial_arm_positions=[0.0, 0.0, 0.3, 0.5])
    teleop = ArmTeleop(TeleopSettings(), ik)
    clutch = teleop.session.pipeline.upstream[0].upstream[0].retargeter   # action's clutch
    states: List[ExecutionState] = []
    resets: List[float] = []
    engagements: List[float] = []
    rolls, grippers, errors = [], [], []
    engaged = False
    for tick in range(int(session.duration * 60.0)):   # the node's default 60 Hz
        now = tick / 60.0
        index = int(np.searchsorted(session.time, now, side='right')) - 1
        out = teleop.tick(now, sample(session, 'left', index), sample(session, 'right', index))
        if not states or out.state is not states[-1]:
            states.append(out.state)
        if out.reset:
            resets.append(now)
        if clutch.is_engaged and not engaged:
            engagements.append(now)
        engaged = clutch.is_engaged
        rolls.append(float(out.action[3]))
        grippers.append(float(out.action[4]))
        if out.joint_positions is not None:
            errors.append(ik.last_error)
    S, P, R = ExecutionState.STOPPED, ExecutionState.PAUSED, ExecutionState.RUNNING
    assert states == [S, P, R, P, R, S, P, R, P]
    # The thumbstick reset at 25 s (one pulse), the kill held for a second at 29.5 s.
    assert any(25.0 < t < 25.5 for t in resets) and sum(29.5 < t < 30.6 for t in resets) > 30
    # Engaged at 2.5 s, after the tracking drop-out, after releasing (11 s), after the pause and
    # after the kill (the reset at 25 s re-latches at home within its own tick).
    starts: Tuple[float, ...] = (2.5, 6.2, 11.0, 21.5, 32.3)
    assert len(engagements) == len(starts)
    assert all(start <= t < start + 0.7 for start, t in zip(starts, engagements)), engagements
    assert max(rolls) > 0.7 and min(rolls) < -0.4
    assert max(grippers) == 1.0 and min(grippers) == 0.0
    assert max(errors) < 1e-3   # every target of the session is within the arm's reach


def test_save_and_load_round_trip_and_bad_files_are_named(tmp_path: pathlib.Path) -> None:
    session = record_session()
    path = tmp_path / 'session.npz'
    session.save(path)
    loaded = XrSession.load(path)
    assert np.allclose(loaded.hands['right'].position, session.hands['right'].position, atol=1e-6)
    (tmp_path / 'text.npz').write_text('not a session')
    with pytest.raises(SessionFileError, match='text.npz: not a session file'):
        XrSession.load(tmp_path / 'text.npz')
    with pytest.raises(SessionFileError, match='missing.npz'):
        XrSession.load(tmp_path / 'missing.npz')
    np.savez(tmp_path / 'partial.npz', version=np.array(1), time=np.arange(3.0))
    with pytest.raises(SessionFileError, match="no 'frame_id'|no 'left_position'"):
        XrSession.load(tmp_path / 'partial.npz')


def test_sessions_with_unusable_arrays_are_refused() -> None:
    count = 4
    track = HandTrack(np.zeros((count, 3)), np.tile([0.0, 0.0, 0.0, 1.0], (count, 1)),
                      np.ones(count, dtype=bool), np.zeros((count, 3)), np.zeros((count, 4)))
    times = np.arange(count) / 90.0
    XrSession(times, {'left': track, 'right': track})
    with pytest.raises(ValueError, match='strictly increasing'):
        XrSession(times[::-1], {'left': track, 'right': track})
    with pytest.raises(ValueError, match='hands'):
        XrSession(times, {'left': track})
    bad = HandTrack(np.full((count, 3), np.nan), track.orientation, track.tracked, track.buttons,
                    track.axes)
    with pytest.raises(ValueError, match='right position: must be finite'):
        XrSession(times, {'left': track, 'right': bad})
