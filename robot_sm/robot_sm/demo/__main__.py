"""``python -m robot_sm.demo``: run the demo (see :mod:`robot_sm.demo.main`)."""

import sys

from robot_sm.demo.main import main

sys.exit(main())
