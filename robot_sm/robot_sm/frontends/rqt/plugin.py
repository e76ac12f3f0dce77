"""The rqt plugin (rqt_gui_py) hosting the :mod:`~robot_sm.frontends.rqt.control_panel`."""

from typing import Any

from qt_gui.plugin import Plugin
from robot_sm.client import FleetClient, SuiteClient
from robot_sm.frontends.rqt.control_panel import ControlPanel, PanelBackend


class RobotSmControl(Plugin):
    """rqt plugin "robot_sm Control"; it shares rqt's rclpy node and never shuts ROS down."""

    def __init__(self, context: Any) -> None:
        super().__init__(context)
        self.setObjectName('RobotSmControl')
        node = context.node
        self._fleet = FleetClient(timeout=3.0)
        self._client = SuiteClient(namespace=node.get_namespace(), timeout=3.0,
                                   context=self._fleet.context)
        self._panel = ControlPanel(PanelBackend(self._client), fleet=self._fleet)
        if context.serial_number() > 1:
            self._panel.setWindowTitle(
                f'{self._panel.windowTitle()} ({context.serial_number()})')
        context.add_widget(self._panel)

    def shutdown_plugin(self) -> None:
        """Stop the panel; ROS keeps running for the other plugins."""
        self._panel.shutdown()
        self._client.close()
        self._fleet.close()
