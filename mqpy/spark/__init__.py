"""PySpark capacity reports over the exporter's JSON Lines (``report``), rendered by ``html``.

Importing this package does not import pyspark; ``report`` does.
"""
