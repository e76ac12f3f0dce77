"""robot_sm: a supervised operating cycle for ROS 2 robots."""
