"""mqpy's version: ``mqpy.__version__``, and the header of a trace file."""

__version__ = "0.1.0"
