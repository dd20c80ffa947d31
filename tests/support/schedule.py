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

#: longest first; each a path from the repository's root (per-file sums of setup, call and
#: teardown in a whole-suite run with --durations=0, 4 workers, 2026-11-30 at 25d267a, the
#: work units of 10 s or more, the runmqlsr channels' and start-up imports' files placed by
#: runs of their own since; a work unit of SHARED_SET_UP (tests/spark, tests/samples) goes
#: where its first file is, its files listed together)
LONGEST = (
    "tests/spark/test_columnar.py",
    "tests/spark/test_report.py",
    "tests/spark/test_report_content.py",
    "tests/spark/test_short_run.py",
    "tests/spark/test_cli.py",
    "tests/spark/test_inputs.py",
    "tests/spark/test_layout.py",
    "tests/spark/test_report_speed.py",
    "tests/samples/test_samples_client.py",
    "tests/samples/test_samples_browse_and_connect.py",
    "tests/samples/test_samples_triggered.py",
    "tests/samples/test_samples_rua.py",
    "tests/samples/test_samples_pubsub.py",
    "tests/samples/test_event_and_blast_samples.py",
    "tests/samples/test_samples_client_channel.py",
    "tests/samples/test_samples.py",
    "tests/robustness/test_bindings_served_from_bytes_differential.py",
    "tests/client/test_reconnect.py",
    "tests/robustness/test_hostile_client_requests.py",
    "tests/chaos/test_short_run.py",
    "tests/client/test_quiesce.py",
    "tests/stats/test_accounting_disconnect_daemon.py",
    "tests/operator_day/test_operators_day.py",
    "tests/client/test_reconnect_qmid.py",
    "tests/client/test_quiesce_standard.py",
    "tests/robustness/test_svrconn_hostile_flows.py",
    "tests/daemon/test_lifecycle.py",
    "tests/web/test_console_browser.py",
    "tests/robustness/test_control_commands.py",
    "tests/engine/test_failure_interleavings.py",
    "tests/channels/test_pipelining.py",
    "tests/client/test_half_close_replies.py",
    "tests/web/test_encoded_names.py",
    "tests/cluster/test_four_qmgrs.py",
    "tests/architecture/test_layers.py",
    "tests/daemon/test_endmqm_runmqlsr_clients.py",
    "tests/cluster_pubsub/test_clustered_topics.py",
    "tests/robustness/test_hostile_segments.py",
    "tests/web/test_hostile_console.py",
    "tests/channels/test_operations_acceptance.py",
    "tests/robustness/test_hostile_bindings_requests.py",
    "tests/dead_letter_handler/test_sigkill.py",
    "tests/web/test_metrics_cost.py",
    "tests/daemon/test_restart_progress.py",
    "tests/security/test_strmqm_security.py",
    "tests/security/test_client_context_authority.py",
    "tests/peer/test_ibmmq_examples.py",
    "tests/daemon/test_endmqm_preemptive_clients.py",
    "tests/robustness/test_hostile_properties.py",
    "tests/channels/test_kill.py",
    "tests/web/test_token_login.py",
    "tests/client/test_after_disconnect_requests.py",
    "tests/daemon/test_idle_wakeups.py",
    "tests/channels/test_runmqlsr_channels.py",
    "tests/security/test_tls.py",
    "tests/async_consume/test_stop_promptly_tls.py",
    "tests/web/test_messaging_rest.py",
    "tests/robustness/test_hostile_tls.py",
    "tests/robustness/test_svrconn_served_from_bytes_differential.py",
    "tests/daemon/test_idle_cluster.py",
    "tests/web/test_control_commands.py",
    "tests/web/test_hostile_messages.py",
    "tests/client/test_fastpath.py",
    "tests/robustness/test_hostile_peers.py",
    "tests/daemon/test_working_folder.py",
    "tests/async_consume/test_consumers.py",
    "tests/channels/test_channel_pairs.py",
    "tests/client/test_end_conv_order.py",
    "tests/robustness/test_admin_refusals.py",
    "tests/mqi/test_bad_structures.py",
    "tests/security/test_channel_security.py",
    "tests/mqi/test_crash.py",
    "tests/daemon/test_idle_pubsub.py",
    "tests/wire/test_fused_bodies.py",
    "tests/architecture/test_startup_imports.py",
    "tests/mqi/test_segmentation_crash.py",
    "tests/channels/test_operator_receiver_quiesce.py",
    "tests/web/test_admin_rest.py",
    "tests/mqi/test_calls_fail_alone_fastpath.py",
    "tests/client/test_socket_action.py",
    "tests/robustness/test_hostile_lsrcontrol.py",
    "tests/mqi/test_truncated_get_data.py",
    "tests/robustness/test_socket_action_hostile_clients.py",
    "tests/security/test_partner_values_in_mqsc.py",
    "tests/daemon/test_start_stop_events.py",
    "tests/dead_letter_handler/test_processing.py",
    "tests/performance_paths/test_loop_sends.py",
    "tests/stats/test_intervals.py",
    "tests/daemon/test_idle_trace.py",
    "tests/benchmarks/test_request_reply_bench.py",
    "tests/client/test_display_conn.py",
    "tests/channels/test_undeliverable.py",
    "tests/mqi/test_headers_in_message_data.py",
    "tests/client/test_big_endian_client.py",
    "tests/mqi/test_embedded_trace.py",
    "tests/mqi/test_segmentation.py",
    "tests/web/test_health.py",
    "tests/async_consume/test_events.py",
    "tests/pcf_execute/test_collected_over_bindings.py",
    "tests/web/test_metrics.py",
    "tests/client/test_fastpath_calls.py",
    "tests/async_put/test_put_and_stat.py",
    "tests/message_properties/test_read_ahead_properties.py",
    "tests/channels/test_operator_runmqchl.py",
    "tests/channels/test_operator_restart.py",
    "tests/channels/test_retry_and_stop.py",
    "tests/channels/test_distribution_lists.py",
    "tests/message_properties/test_selection_on_open.py",
    "tests/mqi/test_descriptor_checks.py",
    "tests/mqi/test_message_groups.py",
    "tests/web/test_hostile_requests.py",
    "tests/channels/test_adopt_and_limits.py",
    "tests/message_properties/test_put_get_with_handles.py",
    "tests/pymqi_compat/test_pymqi_documented_programs.py",
    "tests/performance_paths/test_client_packed_serving.py",
    "tests/client/test_channel_instances.py",
    "tests/robustness/test_socket_action_hostile_queue_manager.py",
    "tests/daemon/test_trace.py",
    "tests/message_properties/test_consumers_get_properties.py",
    "tests/async_consume/test_callback_errors.py",
    "tests/web/test_security.py",
    "tests/channels/test_commands_and_status.py",
    "tests/client/test_default_binding.py",
    "tests/channels/test_batches.py",
    "tests/channels/test_heartbeats.py",
    "tests/web/test_bad_requests.py",
    "tests/security/test_connauth.py",
    "tests/pymqi_compat/test_pcf_execute_options.py",
    "tests/daemon/test_control_command_options.py",
    "tests/read_ahead/test_client_connections.py",
    "tests/channels/test_userid_midsession_svrconn.py",
    "tests/mqi/test_message_groups_fastpath.py",
    "tests/web/test_command_replies.py",
    "tests/mqi/test_restart.py",
    "tests/robustness/test_bindings_hostile_application.py",
    "tests/engine/test_log.py",
    "tests/performance_paths/test_bindings_spin_calls.py",
    "tests/mqi/test_name_resolution.py",
    "tests/engine/test_big_messages.py",
    "tests/client/test_connection_level_flows.py",
    "tests/wire/test_framing.py",
    "tests/mqi/test_segmentation_fastpath.py",
    "tests/pymqi_compat/test_ibmmq_programs_dev_patterns.py",
    "tests/async_consume/test_stop_promptly_deployed.py",
    "tests/daemon/test_idle_statint.py",
    "tests/async_put/test_distribution_lists.py",
    "tests/channels/test_operator_commands.py",
    "tests/daemon/test_bindings.py",
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
