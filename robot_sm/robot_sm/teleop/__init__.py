"""
Teleop retargeting core: controller samples in, arm joint targets out, no ROS.

A small retargeting graph (:mod:`.graph`) evaluates retargeters once per tick. A control pipeline
of debounced button selectors (:mod:`.selector`) and a teleop state manager (:mod:`.state_manager`)
decides the execution state (STOPPED / PAUSED / RUNNING) and reset pulses; the clutch
(:mod:`.clutch`), wrist-roll (:mod:`.roll`) and gripper (:mod:`.gripper`) retargeters read it and
the reorderer (:mod:`.reorderer`) flattens their outputs into the 5-D action
``[pos_x, pos_y, pos_z, roll, gripper]``. :mod:`.ik` turns the action into joint positions of a
URDF arm with pinocchio, and :mod:`.arm_teleop` puts it all together for the
``teleop_retargeting`` node. Time is always an argument in seconds.
"""
