"""Message properties: names, types and values, a message's property set, message handles, and
properties carried as MQRFH2 folders. Pure data and rules: no I/O, no engine, no wire.

- ``errors``: ``PropertyError``, the MQMIError the calls here raise.
- ``names``: IBM's property-name rules (characters, reserved names and prefixes, the ``usr.``
  folder, the JMS synonyms and the ``Root.MQMD.*`` names).
- ``types``: MQTYPE_* values, their lengths, and MQIMPO_CONVERT_TYPE's conversions.
- ``propset``: ``PropertySet``, MQSETMP / MQINQMP / MQDLTMP with IBM's property cursor.
- ``handles``: ``MessageHandleTable``, MQCRTMH / MQDLTMH / MQMHBUF / MQBUFMH per connection.
- ``rfh2props``: a property set as MQRFH2 folders and back (NameValueData, ``dt``, escaping).
- ``carriage``: properties taken out of / given to message data as MQRFH2 headers.
- ``delivery``: where MQGET puts properties (MQGMO_PROPERTIES_*, queue PROPCTL) and what a
  channel's PROPCTL sends to a partner without properties.
- ``facade``: pymqi's / ``ibmmq``'s ``MessageHandle.properties`` over a message handle.
"""
