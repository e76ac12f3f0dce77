"""
The Qt binding the panel uses: python_qt_binding on a ROS install, PySide6 otherwise.

The panel sticks to the API common to Qt 5 and Qt 6 so that both work.
"""

try:
    from python_qt_binding import QtCore, QtGui, QtWidgets
except ImportError:
    from PySide6 import QtCore, QtGui, QtWidgets

Signal = QtCore.Signal

__all__ = ['QtCore', 'QtGui', 'QtWidgets', 'Signal']
