"""
Position-only inverse kinematics of a URDF arm with pinocchio.

A 5-DOF arm cannot track a full 6-DOF pose, so the arm joints (for an SO-101: shoulder_pan,
shoulder_lift, elbow_flex, wrist_flex) track only the position of an end-effector frame; the roll
joint takes the roll channel and the gripper joint ``gripper_offset + gripper_scale·closedness``,
both clamped to their limits.

Each solve runs a few damped-least-squares (Levenberg-Marquardt) iterations on pinocchio's frame
Jacobian, warm-started from the previous solution::

    Δq = Jᵀ (J Jᵀ + (|e|² + λ²) I)⁻¹ e

The error-dependent damping (Sugihara, 2011) makes a near target converge like Gauss-Newton and a
far or unreachable one move in small, monotone gradient-like steps instead of thrashing at the
stretched-out singularity. Each step is limited to ``ik_max_step`` radians per joint and every
joint is clamped to its URDF limits. Teleop targets move a little per tick, so a handful of
iterations converge; an out-of-reach target ends at the closest reachable point within the limits,
never NaN. An iteration that moves no joint by more than :data:`STALL_STEP` ends the solve early:
the arm already stands where further iterations would leave it (out of reach, or pinned at a
limit), so an out-of-reach target costs about as much as a reachable one instead of every
iteration.
"""

import math
from typing import Any, List, Optional, Sequence
from xml.etree import ElementTree

import numpy as np
import pinocchio as pin

from robot_sm.teleop.checks import vector
from robot_sm.teleop.settings import IkSettings


def model_from_urdf(urdf: str) -> 'pin.Model':
    """
    Return the kinematic model of URDF text (a ``robot_description``).

    :raises ValueError: if the text is not a URDF pinocchio can read.
    """
    try:
        root = ElementTree.fromstring(urdf)
    except ElementTree.ParseError as error:
        raise ValueError(f'not a usable URDF: {error}') from None
    if root.tag != 'robot':
        raise ValueError(f'not a usable URDF: the root element is <{root.tag}>, not <robot>')
    try:
        return pin.buildModelFromXML(urdf)
    except (RuntimeError, ValueError) as error:
        problem = str(error).strip().splitlines()[0] if str(error).strip() else 'unreadable'
        raise ValueError(f'not a usable URDF: {problem}') from None


def model_from_urdf_file(path: str) -> 'pin.Model':
    """Return the kinematic model of a URDF file; :raises ValueError: if unreadable or unusable."""
    try:
        with open(path, encoding='utf-8') as stream:
            text = stream.read()
    except OSError as error:
        raise ValueError(f'cannot read URDF file {path!r}: {error.strerror}') from None
    return model_from_urdf(text)


#: An iteration that moves no joint by more than this (rad, or m) ends the solve: the target is
#: out of reach or behind a limit and the arm already stands at the closest point it can reach.
STALL_STEP = 1e-5


class PositionIk:
    """Damped-least-squares position IK for the arm joints, plus roll and gripper channels."""

    def __init__(self, model: 'pin.Model', settings: IkSettings = IkSettings()) -> None:
        """
        Solve for the frames and joints ``settings`` name in ``model``.

        :raises ValueError: for a frame or joint the model does not have, or joints named twice.
        """
        self.model = model
        self.data = model.createData()
        ee_frame, arm_joints = settings.ee_frame, list(settings.arm_joints)
        roll_joint, gripper_joint = settings.roll_joint, settings.gripper_joint
        if not model.existFrame(ee_frame):
            raise ValueError(f"ee_frame '{ee_frame}' is not a frame of the robot model")
        self._frame = model.getFrameId(ee_frame)
        if not arm_joints:
            raise ValueError('arm_joints must name at least one joint')
        names = [*arm_joints, roll_joint, gripper_joint]
        if len(set(names)) != len(names):
            raise ValueError(f'arm_joints, roll_joint and gripper_joint must differ: {names}')
        self._arm_q = np.array([self._index(name, 'arm_joints') for name in arm_joints])
        self._arm_v = np.array([model.joints[model.getJointId(name)].idx_v for name in arm_joints])
        self._roll_q = self._index(roll_joint, 'roll_joint')
        self._gripper_q = self._index(gripper_joint, 'gripper_joint')
        self.joint_names: List[str] = names
        self._command_q = np.array([*self._arm_q, self._roll_q, self._gripper_q])
        self.gripper_offset = settings.gripper_offset
        self.gripper_scale = settings.gripper_scale
        self.damping = settings.ik_damping
        self.max_iterations = settings.ik_max_iterations
        self.tolerance = settings.ik_tolerance
        self.max_step = settings.ik_max_step
        self._lower = np.array(model.lowerPositionLimit, dtype=float)
        self._upper = np.array(model.upperPositionLimit, dtype=float)
        self._q = self._clamp(np.array(pin.neutral(model), dtype=float))
        if settings.initial_arm_positions is not None:
            initial = vector(settings.initial_arm_positions, len(arm_joints),
                             'initial_arm_positions')
            for index, value, name in zip(self._arm_q, initial, arm_joints):
                if not self._lower[index] <= value <= self._upper[index]:
                    raise ValueError(
                        f"initial_arm_positions: {value:g} is outside the limits of '{name}' "
                        f'[{self._lower[index]:g}, {self._upper[index]:g}]')
                self._q[index] = value
        #: Per arm joint: configuration index, lower and upper limit.
        self._columns = [(int(i), float(self._lower[i]), float(self._upper[i]))
                         for i in self._arm_q]
        #: The arm's Jacobian columns: a slice (a view, cheaper) when they are contiguous.
        first = int(self._arm_v[0])
        self._arm_v_columns: Any = (
            slice(first, first + len(self._arm_v))
            if list(self._arm_v) == list(range(first, first + len(self._arm_v))) else self._arm_v)
        self.last_error = 0.0
        #: Iterations that changed the joints in the last solve.
        self.iterations = 0

    @classmethod
    def from_urdf(cls, urdf: str, **settings: Any) -> 'PositionIk':
        """Build from URDF text and :class:`IkSettings` fields; :raises ValueError: if unusable."""
        return cls(model_from_urdf(urdf), IkSettings(**settings))

    @classmethod
    def from_urdf_file(cls, path: str, **settings: Any) -> 'PositionIk':
        """Build from a URDF file and :class:`IkSettings` fields; :raises ValueError: if bad."""
        return cls(model_from_urdf_file(path), IkSettings(**settings))

    def _index(self, name: str, field: str) -> int:
        if not self.model.existJointName(name):
            raise ValueError(f"{field}: '{name}' is not a joint of the robot model")
        joint = self.model.joints[self.model.getJointId(name)]
        if joint.nq != 1 or joint.nv != 1:
            raise ValueError(f"{field}: '{name}' must be a revolute or prismatic joint with "
                             'limits (one coordinate)')
        return int(joint.idx_q)

    def _clamp(self, q: np.ndarray) -> np.ndarray:
        return np.minimum(np.maximum(q, self._lower), self._upper)

    @property
    def positions(self) -> np.ndarray:
        """Return the last commanded positions of :attr:`joint_names` (a copy)."""
        return self._q[self._command_q].copy()

    @property
    def limits(self) -> np.ndarray:
        """Return lower and upper limits of :attr:`joint_names`, shape (2, n)."""
        return np.stack((self._lower[self._command_q], self._upper[self._command_q]))

    def forward(self, positions: Optional[Sequence[float]] = None) -> np.ndarray:
        """
        Return the end-effector frame position for ``positions`` of :attr:`joint_names`.

        Without ``positions``, for the last solution.
        """
        q = self._q.copy()
        if positions is not None:
            q[self._command_q] = np.asarray(positions, dtype=float)
        pin.framesForwardKinematics(self.model, self.data, q)
        return np.array(self.data.oMf[self._frame].translation)

    def solve(self, target: np.ndarray, roll: float, closedness: float) -> np.ndarray:
        """
        Return joint positions (in :attr:`joint_names` order) reaching ``target`` (base frame).

        Warm-started from the previous solution; every joint stays within its limits. A
        non-finite target keeps the arm joints where they are; a non-finite roll or closedness
        keeps that joint. :attr:`last_error` is the remaining position error in metres.
        """
        q = self._q
        if math.isfinite(roll):
            q[self._roll_q] = roll
        if math.isfinite(closedness):
            q[self._gripper_q] = self.gripper_offset + self.gripper_scale * closedness
        q[:] = self._clamp(q)
        tx, ty, tz = (float(v) for v in np.asarray(target, dtype=float).reshape(3))
        if not (math.isfinite(tx) and math.isfinite(ty) and math.isfinite(tz)):
            self.last_error = math.inf
            return self.positions
        self.last_error = math.sqrt(self._iterate(q, tx, ty, tz))
        return self.positions

    def _iterate(self, q: np.ndarray, tx: float, ty: float, tz: float) -> float:
        """
        Run the damped least-squares iterations on ``q`` in place; return the squared error.

        Scalar Python arithmetic on the 3 x n linear Jacobian: for a handful of joints it is
        several times faster than numpy's per-call overhead (``np.linalg.solve`` alone costs
        more than a whole iteration here). The iterations stop at ``tolerance``, after
        ``max_iterations``, or after an iteration that moved no joint by more than
        :data:`STALL_STEP`.
        """
        model, data, frame = self.model, self.data, self._frame
        columns, arm_v, damping = self._columns, self._arm_v_columns, self.damping ** 2
        tolerance = self.tolerance ** 2
        max_step = self.max_step
        self.iterations = 0
        for iteration in range(self.max_iterations + 1):
            jacobian = pin.computeFrameJacobian(model, data, q, frame, pin.LOCAL_WORLD_ALIGNED)
            x, y, z = pin.updateFramePlacement(model, data, frame).translation.tolist()
            ex, ey, ez = tx - x, ty - y, tz - z
            squared = ex * ex + ey * ey + ez * ez
            if squared <= tolerance or iteration == self.max_iterations:
                break
            # A = J J^T + (|e|^2 + lambda^2) I, symmetric 3 x 3; solve A w = e by its adjugate.
            jx, jy, jz = jacobian[:3, arm_v].tolist()
            a = b = c = d = e = f = 0.0
            for u, v, w in zip(jx, jy, jz):
                a += u * u
                b += u * v
                c += u * w
                d += v * v
                e += v * w
                f += w * w
            mu = squared + damping
            a, d, f = a + mu, d + mu, f + mu
            m00, m01, m02 = d * f - e * e, c * e - b * f, b * e - c * d
            m11, m12, m22 = a * f - c * c, b * c - a * e, a * d - b * b
            inverse_det = 1.0 / (a * m00 + b * m01 + c * m02)
            wx = (m00 * ex + m01 * ey + m02 * ez) * inverse_det
            wy = (m01 * ex + m11 * ey + m12 * ez) * inverse_det
            wz = (m02 * ex + m12 * ey + m22 * ez) * inverse_det
            step = [u * wx + v * wy + w * wz for u, v, w in zip(jx, jy, jz)]
            largest = max(map(abs, step))
            scale = max_step / largest if largest > max_step else 1.0
            moved = 0.0
            for (index, lower, upper), change in zip(columns, step):
                before = q[index]
                after = min(max(before + scale * change, lower), upper)
                q[index] = after
                moved = max(moved, abs(after - before))
            self.iterations = iteration + 1
            if moved <= STALL_STEP:
                break
        return squared
