"""The repository manager kept running by its channel initiator: whatever ends it (an MQ
error, a bug, a stray message it cannot read) is logged (AMQ9448E, with an FDC for anything
but an MQ reason) and it is started again after a pause that doubles up to
REPOS_RESTART_MAX; channels go on meanwhile. It ends for good only with its queue manager.
"""

from __future__ import annotations

from typing import Any

import trio

from mqpy_chinit.supervision import QMGR_GONE, first_leaf, mq_reasons, record_failure

from .manager import RepositoryManager

#: The repository manager is started again this long after it failed, doubling to the max.
REPOS_RESTART_MIN = 1.0
REPOS_RESTART_MAX = 60.0


async def run_repository_manager(chinit: Any) -> None:
    """The cluster repository manager (IBM's amqrrmfa) of ``chinit``, supervised (module
    docstring); ``chinit.cluster`` is the running one, None between runs."""
    delay = REPOS_RESTART_MIN
    while True:
        manager = RepositoryManager(chinit, str(chinit.cluster_cache), clock=chinit.cluster_clock)
        began = trio.current_time()
        try:
            chinit.cluster = manager
            await manager.run()
            return
        except Exception as exc:  # noqa: BLE001 - supervised: logged, then restarted
            reasons = mq_reasons(exc)
            if reasons and all(r in QMGR_GONE for r in reasons):
                raise  # its queue manager went: so does the channel initiator
            if trio.current_time() - began > REPOS_RESTART_MAX:
                delay = REPOS_RESTART_MIN  # it had been running well: a fresh failure
            first = first_leaf(exc)
            cause = f"reason {reasons[0]}" if reasons else \
                f"{type(first).__name__}: {first}"
            if not reasons:
                fdc = record_failure(chinit, "RM000001", exc)
                cause += f" (FDC {fdc})" if fdc else ""
            chinit.log("AMQ9448E", f"Repository manager ended: {cause}; it is restarted "
                       f"in {delay:g} seconds.")
        finally:
            chinit.cluster = None
        await trio.sleep(delay)
        delay = min(delay * 2, REPOS_RESTART_MAX)
