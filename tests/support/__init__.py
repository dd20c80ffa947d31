"""Helpers shared by the test suites, named for what they are: free ports, waits, an
installation of daemons started as an operator starts them, a site with its channel
initiator and listener, and a fault-injecting TCP proxy."""
