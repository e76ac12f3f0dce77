"""The robot_sm control panel for rqt (a plain Qt widget, usable standalone too)."""
