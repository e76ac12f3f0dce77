"""
A URDF arm's joints, limits and link transforms, for the simulation and its TF.

The joints and links are those of the URDF (pinocchio builds the kinematics, as the teleop IK
does). :meth:`ArmModel.link_transforms` returns, for every joint of the URDF, the transform from
its parent link to its child link at the given joint positions: the transforms
``robot_state_publisher`` would broadcast for the same URDF and ``joint_states``, under the same
frame names. Fixed joints never change; :meth:`ArmModel.fixed_transforms` returns them once (for
``/tf_static``) and :meth:`ArmModel.moving_transforms` the rest.
"""

from dataclasses import dataclass
from typing import Dict, List, Mapping, Sequence, Tuple
from xml.etree import ElementTree

import numpy as np
import pinocchio as pin

from robot_sm.teleop import quaternion
from robot_sm.teleop.ik import model_from_urdf
from robot_sm_control import ControlLimits


@dataclass(frozen=True)
class LinkTransform:
    """Parent link ← child link of one URDF joint: translation (m), rotation ``[x, y, z, w]``."""

    parent: str
    child: str
    translation: Tuple[float, float, float]
    rotation: Tuple[float, float, float, float]


@dataclass(frozen=True)
class _Joint:
    name: str
    parent: str
    child: str
    fixed: bool


class ArmModel:
    """Joints, limits and forward kinematics of a URDF arm."""

    def __init__(self, urdf: str) -> None:
        """
        Read URDF text.

        :raises ValueError: if it is not a URDF pinocchio can read, or a movable joint has more
            than one coordinate (continuous and floating joints are not simulated).
        """
        self.model = model_from_urdf(urdf)
        self.data = self.model.createData()
        root = ElementTree.fromstring(urdf)
        self._joints = [
            _Joint(joint.get('name', ''), _link_of(joint, 'parent'), _link_of(joint, 'child'),
                   joint.get('type') == 'fixed')
            for joint in root.iter('joint')]
        children = {joint.child for joint in self._joints}
        roots = [link.get('name', '') for link in root.iter('link')
                 if link.get('name') not in children]
        self.root_link = roots[0] if roots else ''
        #: Movable joints in URDF order: the joints a ``joint_states`` message names.
        self.joint_names: List[str] = [joint.name for joint in self._joints if not joint.fixed]
        self._q_index: Dict[str, int] = {}
        self._v_index: Dict[str, int] = {}
        for name in self.joint_names:
            joint = self.model.joints[self.model.getJointId(name)]
            if joint.nq != 1 or joint.nv != 1:
                raise ValueError(f"joint '{name}' has {joint.nq} coordinates: only revolute and "
                                 'prismatic joints are simulated')
            self._q_index[name] = int(joint.idx_q)
            self._v_index[name] = int(joint.idx_v)
        self._frames = {link: self.model.getFrameId(link) for joint in self._joints
                        for link in (joint.parent, joint.child)}
        self._q = np.array(pin.neutral(self.model), dtype=float)

    def check_joints(self, names: Sequence[str]) -> None:
        """Check ``names``; :raises ValueError: naming the first that is no movable joint."""
        for name in names:
            if name not in self._q_index:
                raise ValueError(f"'{name}' is not a movable joint of the arm's URDF (its "
                                 f"joints: {', '.join(self.joint_names)})")

    def limits(self, names: Sequence[str]) -> ControlLimits:
        """
        Return the URDF limits of the joints ``names``, in that order, for the controllers.

        Position limits of a joint whose URDF gives none (lower = upper = 0 or infinite) count as
        absent, and so do velocity and effort limits of 0.

        :raises ValueError: for a name that is not a movable joint.
        """
        self.check_joints(names)
        q = [self._q_index[name] for name in names]
        v = [self._v_index[name] for name in names]
        lower = np.array(self.model.lowerPositionLimit, dtype=float)[q]
        upper = np.array(self.model.upperPositionLimit, dtype=float)[q]
        has_limit = np.isfinite(lower) & np.isfinite(upper) & (lower < upper)
        velocity = np.array(self.model.velocityLimit, dtype=float)[v]
        velocity = np.where(velocity > 0.0, velocity, np.inf)
        effort = np.array(self.model.effortLimit, dtype=float)[v]
        effort = np.where(effort > 0.0, effort, np.inf)
        return ControlLimits((np.where(has_limit, lower, -np.inf),
                              np.where(has_limit, upper, np.inf)),
                             (-velocity, velocity), (-effort, effort), has_limit.tolist())

    def _forward(self, positions: Mapping[str, float]) -> None:
        for name, value in positions.items():
            index = self._q_index.get(name)
            if index is not None:
                self._q[index] = value
        pin.framesForwardKinematics(self.model, self.data, self._q)

    def _transform(self, joint: _Joint) -> LinkTransform:
        parent = self.data.oMf[self._frames[joint.parent]]
        child = self.data.oMf[self._frames[joint.child]]
        relative = parent.actInv(child)
        x, y, z = relative.translation.tolist()
        qx, qy, qz, qw = quaternion.from_matrix(relative.rotation).tolist()
        return LinkTransform(joint.parent, joint.child, (x, y, z), (qx, qy, qz, qw))

    def link_transforms(self, positions: Mapping[str, float]) -> List[LinkTransform]:
        """Return every joint's transform at ``positions`` (joints not named keep their last)."""
        self._forward(positions)
        return [self._transform(joint) for joint in self._joints]

    def fixed_transforms(self) -> List[LinkTransform]:
        """Return the transforms of the fixed joints (they do not depend on any position)."""
        self._forward({})
        return [self._transform(joint) for joint in self._joints if joint.fixed]

    def moving_transforms(self, positions: Mapping[str, float]) -> List[LinkTransform]:
        """Return the transforms of the movable joints at ``positions``."""
        self._forward(positions)
        return [self._transform(joint) for joint in self._joints if not joint.fixed]

    def frame_position(self, frame: str, positions: Mapping[str, float]) -> np.ndarray:
        """
        Return the position of URDF frame ``frame`` in the root link at ``positions``.

        :raises ValueError: for an unknown frame.
        """
        if not self.model.existFrame(frame):
            raise ValueError(f"'{frame}' is not a frame of the arm's URDF")
        self._forward(positions)
        return np.array(self.data.oMf[self.model.getFrameId(frame)].translation)


def _link_of(joint: ElementTree.Element, tag: str) -> str:
    element = joint.find(tag)
    if element is None or not element.get('link'):
        raise ValueError(f"not a usable URDF: joint '{joint.get('name')}' has no {tag} link")
    return str(element.get('link'))
