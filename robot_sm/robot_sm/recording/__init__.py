"""
Recording topics to MCAP files as rosbag2 writes them, without ROS.

:mod:`.msgdef` builds the ``ros2msg`` schema of a message type from its ``.msg`` files (the
definition and every type it uses, as rosbag2 stores them); :mod:`.mcap_file` writes serialized
(CDR) messages with those schemas and the channel metadata ``ros2 bag play`` reads. The
``robot-sm record`` command and the demo record the suite's topics with
:mod:`robot_sm.nodes.topic_recorder`.
"""
