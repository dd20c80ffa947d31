"""FAP, IBM MQ's "Formats and Protocols": the bytes two MQ ends exchange, and nothing else.

Everything that crosses a socket between an application and its queue manager (the bindings
socket, a client's SVRCONN channel) or between two queue managers (a message channel) is
declared here, sans-IO: no sockets, no clocks, no queue manager. The bindings connection, the
client, the daemon and the channel initiator all take it from here.

- ``tsh``: the transmission segment header (TSH, TSHM), segment types, control flags, the
  base of every segment event.
- ``statuscodes``: STATUS_DATA codes and ``ProtocolError``.
- ``initialdata``: the INITIAL_DATA flow (the ID structure, capability flags).
- ``messagedata``: the MESSAGE_DATA flow (MSH, MQXQH) and its one-segment fast path.
- ``controlflows``: STATUS, RESET, RESYNC, PING and HEARTBEAT.
- ``apiheader``: the API header of the MQI flows, MQIRequest / MQIReply and their fast path.
- ``flows``: a whole flow's body and its event, for every segment type.
- ``framing``: segments on a byte stream: splitting long flows, reassembly, limits.
- ``negotiation``: the INITIAL_DATA exchange as arithmetic (FAP level, batch size, heartbeat).
- ``userid``: the USERID_DATA (UID) and CONAUTH_INFO (CAUT) flows of a client channel.
- ``mqiflows``: the MQI request and reply bodies (MQOPEN, MQPUT, MQGET ... and the SPI),
  their codec, runs of calls.
- ``mqiparams``: the parameters those bodies are made of (MQLONGs, structures, MQCONN's).
- ``fusedbodies``: the one-``struct``-call form of the bodies every message crosses.
- ``mqicalls``: each MQI call as one request and one reply, for every transport.
- ``channeldefs``: channel definitions: IBM's attribute defaults, names, CONNAME.
- ``tls``: TLS on channels: IBM's CipherSpecs, key repositories, SSLCAUTH and SSLPEER.
"""
