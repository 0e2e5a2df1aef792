"""gunicorn's settings for scorekeeper, in one place (docs/speed.md §Server).

``scorekeeper serve`` sets them (its ``--workers`` and address over these), and so does
``gunicorn -c python:scorekeeper.gunicorn_conf -b HOST:PORT 'scorekeeper:create_app()'``
(README: several instances), as the tests and benchmarks that start gunicorn do. gunicorn
reads each module-level name that is one of its settings.
"""

import gc
import itertools

workers = 2
#: Threads per worker. The work of a request is Python holding the GIL but for its database
#: calls: two threads keep a worker busy while one waits on the database; four spent 0.3 to
#: 0.4 ms of CPU more per entry handing the GIL around under load.
threads = 2
#: Seconds an idle connection stays open (gunicorn's default is 2). A phone that enters every
#: few seconds then reuses its connection (and, behind TLS, its handshake) instead of opening
#: a new one for each entry, and never sends into one the server is closing that moment.
keepalive = 65
#: gunicorn's control socket (unused here) is one path per account: a second server on the
#: same machine would take it over from the first.
control_socket_disable = True
#: Forwarded headers are the app's to believe or not (TRUSTED_PROXIES, ProxyFix): gunicorn's
#: own default believes X-Forwarded-Proto from 127.0.0.1, so any local process could make a
#: plain request look like HTTPS (Secure cookies, HSTS).
forwarded_allow_ips = ""

#: After how many requests a worker freezes what it holds (docs/speed.md §Server).
FREEZE_AFTER = frozenset({1, 10, 100, 1000})


def post_fork(server, worker):
    """Each worker counts the requests it has answered (``itertools.count``: one step is atomic
    under the GIL, so the two threads never count one request twice)."""
    worker.scorekeeper_served = itertools.count(1)


def post_request(worker, req, environ, resp):
    """After the worker's 1st, 10th, 100th and 1,000th request (its answer is sent by then): one
    full collection, then ``gc.freeze()``, so that later full collections no longer walk what the
    app has built and keeps. Why and what it saves: docs/speed.md §Server."""
    served = getattr(worker, "scorekeeper_served", None)
    if served is not None and next(served) in FREEZE_AFTER:
        gc.collect()
        gc.freeze()
