"""mqpy's versions: the IBM MQ level it implements, shown wherever IBM shows a version
(dspmqver, strmqm's "started using V...", error-log VRMF() and FDC levels, runmqsc's banner,
DISPLAY QMGR VERSION), and the Python package's own version (``mqpy.__version__``, pip's).
"""

from mqpy import CMQC

#: the Python package's version (pyproject.toml), for pip and trace-file headers
__version__ = "0.1.0"

#: the command level mqpy implements (DISPLAY QMGR CMDLEVEL, dspmqver's MaxCmdLevel)
CMDLEVEL = CMQC.MQCMDL_CURRENT_LEVEL

#: that level as IBM's version, release, modification and fix pack (925 -> ``9.2.5.0``)
VRMF = f"{CMDLEVEL // 100}.{CMDLEVEL // 10 % 10}.{CMDLEVEL % 10}.0"
