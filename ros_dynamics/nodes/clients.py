# Copyright 2026 The ros_dynamics Authors
# SPDX-License-Identifier: Apache-2.0

"""
Calling a service from a client whose node another thread spins.

Fast DDS (``rmw_fastrtps``) drops a response when the server has not yet
matched the client's response reader: the server logs "failed to send
response (timeout): client will not receive response" after the response
writer's ``max_blocking_time`` (100 ms) and the client's future never
completes. ``wait_for_service`` does not prevent it (it sees the client's
side of the discovery, not the server's), and on a loaded machine the
server's side can lag by more than 100 ms right after the client appears.
``answer`` sends an idempotent request again until one is answered.
"""

import time
from typing import Callable, Optional

RESEND_AFTER = 5.0   # s without an answer before an idempotent request is sent again
POLL = 0.01          # s between looks at the future


def answer(client, request, timeout: float, resend_after: Optional[float] = RESEND_AFTER,
           check: Callable[[], None] = lambda: None):
    """
    Send ``request`` on ``client`` and return its response, or None after ``timeout`` s.

    Another thread must spin the client's node. ``resend_after`` (s): send the
    request again each time no answer came in this long, and take the first
    answer to any copy (a slow server is not outrun by its own queue); only
    for a request that may be served twice (a query, a setter of absolute
    values). None: send once (a step, a lifecycle transition). ``check()``
    runs at every look (e.g. raise when the server's process exited).
    """
    start = time.monotonic()
    futures = []
    try:
        while True:
            now = time.monotonic()
            if now - start >= timeout:
                return None
            if not futures or (resend_after is not None
                               and now - start >= len(futures) * resend_after):
                futures.append(client.call_async(request))
            done = next((future for future in futures if future.done()), None)
            if done is not None:
                return done.result()
            check()
            time.sleep(POLL)
    finally:
        for future in futures:
            if not future.done():
                client.remove_pending_request(future)
