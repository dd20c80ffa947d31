"""The MQI structures (MQMD, MQOD, MQPMO, MQGMO ...): the framework that declares them, and them.

- ``fields``: the kinds of field a structure is made of, byte orders, the structure errors.
- ``layout``: a structure's field table, and what it derives: offsets, lengths, packers.
- ``mqstruct``: ``MQStruct``, the pymqi-shaped Python face of a layout.
- ``mqopts``: pymqi's ``MQOpts``, a structure a program declares itself.
- ``tables``: every MQI structure's field table (IBM's fields, sizes and defaults).

docs/structures.md says how the framework works.
"""
