"""The control panel in a window of its own, outside rqt (``python -m ...rqt.standalone``)."""

import argparse
import signal
import sys

from robot_sm.client import FleetClient, SuiteClient
from robot_sm.frontends.rqt.control_panel import ControlPanel, PanelBackend
from robot_sm.frontends.rqt.qt import QtCore, QtWidgets


def main() -> int:
    """Run the panel in a window of its own (outside rqt)."""
    parser = argparse.ArgumentParser(description='robot_sm control panel')
    parser.add_argument('--namespace', '-n', default='')
    args, qt_args = parser.parse_known_args()
    app = QtWidgets.QApplication([sys.argv[0], *qt_args])
    fleet = FleetClient(timeout=3.0)
    client = SuiteClient(namespace=args.namespace, timeout=3.0, context=fleet.context)
    panel = ControlPanel(PanelBackend(client), fleet=fleet)
    panel.show()
    # Ctrl-C closes the window. Python runs signal handlers only between bytecodes, so a timer
    # hands control to the interpreter now and then while Qt's event loop waits.
    signal.signal(signal.SIGINT, lambda *_: app.quit())
    wake = QtCore.QTimer()
    wake.timeout.connect(lambda: None)
    wake.start(200)
    try:
        return int(app.exec() if hasattr(app, 'exec') else app.exec_())
    finally:
        panel.shutdown()
        client.close()
        fleet.close()


if __name__ == '__main__':
    raise SystemExit(main())
