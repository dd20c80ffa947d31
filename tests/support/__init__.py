"""Helpers shared by the test suites, named for what they are: free ports (ports), waits
(waiting), an installation of daemons started as an operator starts them (installation), a
site with its channel initiator and listener (site, fastpath), queue managers of this process
joined by channels (qmgr, channel_pair, putaut) or run as daemons (daemon_pair), one under
test seen from outside and ended at teardown (embedded), TCP proxies
and captures (proxy, pcap, loopback), hand-written sessions and segments (raw_sessions,
segments, handles), PCF and command-line requests (pcf, cli), a small log (small_log), and
the rule that marks system tests (system)."""
