"""ROS nodes of the suite: one module per node, each translating ROS to calls into a core."""
