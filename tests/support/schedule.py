"""The order in which `make test`'s workers take the test files: the longest first.

pytest-xdist's ``--dist loadfile`` hands out files by their number of tests, or, with
``--no-loadscope-reorder`` (the Makefile's), in collection order: either way a long file with
few tests (the chaos run has one) went last and ran alone while the other workers sat idle. Files listed here (the
longest in a ``--durations`` run of the whole suite; a stale entry only costs its place) are
collected first; every other file keeps its place, and a file's tests keep their order.
The files of a folder in ``SHARED_SET_UP`` go to one worker together (their per-process set-up
made once)."""

from __future__ import annotations

import pytest
from xdist.scheduler import LoadFileScheduling

#: longest first; each a path from the repository's root (per-file sums of a whole-suite run
#: with --junitxml, 4 workers, 2026-11-29 at ac85fb6, files of 7 s or more, and the hostile
#: requests', the reconnection's and the idle processes' files placed by runs of their own;
#: the tests/spark and tests/samples files are each one work unit, see SHARED_SET_UP)
LONGEST = (
    "tests/spark/test_columnar.py",
    "tests/spark/test_report_content.py",
    "tests/spark/test_cli.py",
    "tests/spark/test_short_run.py",
    "tests/spark/test_report.py",
    "tests/spark/test_inputs.py",
    "tests/chaos/test_short_run.py",
    "tests/samples/test_samples_browse_and_connect.py",
    "tests/samples/test_samples_client.py",
    "tests/samples/test_samples_triggered.py",
    "tests/samples/test_samples_rua.py",
    "tests/samples/test_samples_pubsub.py",
    "tests/samples/test_samples_client_channel.py",
    "tests/samples/test_samples.py",
    "tests/client/test_reconnect_qmid.py",
    "tests/client/test_quiesce.py",
    "tests/channels/test_pipelining.py",
    "tests/client/test_reconnect.py",
    "tests/daemon/test_lifecycle.py",
    "tests/operator_day/test_operators_day.py",
    "tests/web/test_console_browser.py",
    "tests/robustness/test_svrconn_hostile_flows.py",
    "tests/robustness/test_hostile_client_requests.py",
    "tests/cluster/test_four_qmgrs.py",
    "tests/cluster_pubsub/test_clustered_topics.py",
    "tests/robustness/test_socket_action_hostile_clients.py",
    "tests/channels/test_kill.py",
    "tests/robustness/test_hostile_peers.py",
    "tests/security/test_strmqm_security.py",
    "tests/robustness/test_hostile_bindings_requests.py",
    "tests/daemon/test_endmqm_preemptive_clients.py",
    "tests/daemon/test_endmqm_runmqlsr_clients.py",
    "tests/benchmarks/test_request_reply_bench.py",
    "tests/web/test_hostile_requests.py",
    "tests/robustness/test_hostile_tls.py",
    "tests/channels/test_operator_receiver_quiesce.py",
    "tests/channels/test_operator_states.py",
    "tests/daemon/test_idle_cluster.py",
    "tests/daemon/test_idle_pubsub.py",
    "tests/robustness/test_hostile_lsrcontrol.py",
    "tests/daemon/test_idle_trace.py",
    "tests/performance_paths/test_loop_sends.py",
    "tests/stats/test_exporter.py",
    "tests/web/test_publish_subscribe_rest.py",
    "tests/security/test_channel_security.py",
    "tests/cluster/test_repository_manager.py",
    "tests/stats/test_intervals.py",
    "tests/daemon/test_dmpmqcfg.py",
    "tests/daemon/test_trace.py",
    "tests/dead_letter_handler/test_processing.py",
    "tests/client/test_fastpath.py",
    "tests/web/test_metrics.py",
    "tests/pymqi_compat/test_pcf_admin.py",
    "tests/channels/test_operator_restart.py",
    "tests/security/test_tls.py",
    "tests/robustness/test_socket_action_hostile_queue_manager.py",
    "tests/web/test_admin_rest.py",
    "tests/web/test_messaging_rest.py",
    "tests/client/test_channel_instances.py",
    "tests/web/test_health.py",
    "tests/channels/test_distribution_lists.py",
    "tests/channels/test_retry_and_stop.py",
    "tests/web/test_command_replies.py",
    "tests/architecture/test_startup_imports.py",
    "tests/channels/test_operator_runmqchl.py",
    "tests/web/test_bad_requests.py",
    "tests/robustness/test_svrconn_served_from_bytes_differential.py",
    "tests/security/test_putaut.py",
    "tests/client/test_default_binding.py",
    "tests/client/test_socket_action.py",
    "tests/channels/test_heartbeats.py",
    "tests/channels/test_adopt_and_limits.py",
    "tests/async_put/test_put_and_stat.py",
    "tests/web/test_security.py",
    "tests/robustness/test_bindings_hostile_application.py",
    "tests/robustness/test_admin_refusals.py",
    "tests/security/test_client_context_authority.py",
    "tests/daemon/test_working_folder.py",
    "tests/robustness/test_control_commands.py",
    "tests/channels/test_operations_acceptance.py",
    "tests/robustness/test_bindings_served_from_bytes_differential.py",
    "tests/web/test_metrics_cost.py",
    "tests/engine/test_failure_interleavings.py",
    "tests/web/test_token_login.py",
    "tests/async_consume/test_stop_promptly_tls.py",
    "tests/async_consume/test_consumers.py",
    "tests/web/test_encoded_names.py",
    "tests/security/test_partner_values_in_mqsc.py",
)


def long_files_first(items: list[pytest.Item]) -> None:
    """Reorder ``items`` in place: the files of :data:`LONGEST` first, in its order."""
    rank = {path: i for i, path in enumerate(LONGEST)}
    last = len(LONGEST)
    # a stable sort: each file's tests stay together and in their order
    items.sort(key=lambda item: rank.get(item.nodeid.split("::", 1)[0], last))


#: folders whose files make one work unit of ``--dist loadfile``: one worker runs them all,
#: so that what they share per process is made once, not once on every worker (a Spark
#: session: a JVM and its first jobs' code generation, 15-60 s each; the samples' queue
#: manager, started by strmqm with a listener)
SHARED_SET_UP = ("tests/spark/", "tests/samples/")


def work_unit(nodeid: str) -> str:
    """The work unit of a test: its file, or the folder of :data:`SHARED_SET_UP` it is in."""
    path = nodeid.split("::", 1)[0]
    return next((folder for folder in SHARED_SET_UP if path.startswith(folder)), path)


class FilesAndSharedFolders(LoadFileScheduling):
    """``--dist loadfile``, the folders of :data:`SHARED_SET_UP` each one work unit."""

    def _split_scope(self, nodeid: str) -> str:
        return work_unit(nodeid)
