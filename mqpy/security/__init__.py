"""The queue manager's security: the policy the engine asks at MQCONN, MQOPEN and channel start
(:mod:`mqpy.security.policy`), object authorities (:mod:`~mqpy.security.authority`), channel
authentication records (:mod:`~mqpy.security.chlauth`), the authorities administration commands
need (:mod:`~mqpy.security.commands`) and the user repository (:mod:`~mqpy.security.users`)."""
