"""mqpy: an MQSeries-style queue manager in pure Python, with a pymqi-shaped MQI.

``import mqpy as pymqi`` gives a pymqi program the names it uses: connect, QueueManager, Queue,
MD, OD, PMO, GMO, CD, SCO, CMQC, CMQCFC, CMQXC, MQMIError, and PCFExecute (with the PCF
structures and Filter) for the command server. ``mqpy.embedded(name)`` runs a queue manager
inside the calling process.
"""

from mqpy import CMQC, CMQCFC, CMQXC, CMQZC
from mqpy.errors import Error, MQMIError, PYIFError
from mqpy.mqi import Queue, QueueManager, connect, embedded, stop_embedded
from mqpy.pcf import CFBS, CFGR, CFIF, CFIL, CFIN, CFSF, CFSL, CFST
from mqpy.pcfexec import Filter, PCFExecute
from mqpy.rfh2 import RFH2
from mqpy.structures import CD, DH, DLH, GMO, MD, OD, OR, PMO, PMR, RR, SCO, TM, TMC2, XQH

__version__ = "0.1.0"

__all__ = [
    "CMQC", "CMQCFC", "CMQXC", "CMQZC",
    "CD", "DH", "DLH", "GMO", "MD", "OD", "OR", "PMO", "PMR", "RR", "SCO", "TM", "TMC2", "XQH",
    "Error", "MQMIError", "PYIFError",
    "Queue", "QueueManager", "connect", "embedded", "stop_embedded",
    "CFBS", "CFGR", "CFIF", "CFIL", "CFIN", "CFSF", "CFSL", "CFST", "Filter", "PCFExecute",
    "RFH2",
]
