"""gunicorn's settings for scorekeeper, in one place (docs/speed.md §Server).

``scorekeeper serve`` sets them (its ``--workers`` and address over these), and so does
``gunicorn -c python:scorekeeper.gunicorn_conf -b HOST:PORT 'scorekeeper:create_app()'``
(README: several instances), as the tests and benchmarks that start gunicorn do. gunicorn
reads each module-level name that is one of its settings.
"""

import gc
import itertools
import os

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


#: Set to 0 to leave the workers to the scheduler instead of one CPU each (:func:`pre_fork`).
PIN_WORKERS_VARIABLE = "SCOREKEEPER_PIN_WORKERS"


def cpu_for_worker(usable: set[int], taken: list[int | None], workers: int) -> int | None:
    """The CPU a new worker is to run on, or None to leave it to the scheduler.

    ``usable``: the CPUs the server may run on; ``taken``: the CPU of each other live worker
    (None: not pinned); ``workers``: how many workers the server runs. When the workers fill
    the usable CPUs (at least one each; two on a two-core machine), the CPU fewest live workers
    run on, the lowest of a tie: a worker replaced after a crash takes the CPU its predecessor
    left. With fewer workers than CPUs, or one CPU, None: the CPUs are then not the workers'
    alone to share. Why pin at all: docs/speed.md §Server."""
    if len(usable) < 2 or workers < len(usable):
        return None
    load = dict.fromkeys(sorted(usable), 0)
    for cpu in taken:
        if cpu in load:
            load[cpu] += 1
    return min(load, key=load.__getitem__)


def pre_fork(server, worker):
    """In the master, before a worker is forked: the CPU it will run on
    (:func:`cpu_for_worker`, from the CPUs the other live workers were given), kept on the
    worker as ``scorekeeper_cpu``; None when pinning is off (``SCOREKEEPER_PIN_WORKERS=0``) or
    the system has no CPU affinity. Decided here, one worker at a time, and not in the workers
    themselves, which start at once and would not see each other's choice."""
    cpu = None
    if os.environ.get(PIN_WORKERS_VARIABLE, "1") != "0" and hasattr(os, "sched_setaffinity"):
        taken = [getattr(other, "scorekeeper_cpu", None) for other in server.WORKERS.values()]
        cpu = cpu_for_worker(os.sched_getaffinity(0), taken, server.num_workers)
    worker.scorekeeper_cpu = cpu


def post_fork(server, worker):
    """Each worker runs on the CPU :func:`pre_fork` gave it, if any, and counts the requests it
    has answered (``itertools.count``: one step is atomic under the GIL, so the two threads
    never count one request twice)."""
    cpu = getattr(worker, "scorekeeper_cpu", None)
    if cpu is not None:
        os.sched_setaffinity(0, {cpu})
    worker.scorekeeper_served = itertools.count(1)


def post_request(worker, req, environ, resp):
    """After the worker's 1st, 10th, 100th and 1,000th request (its answer is sent by then): one
    full collection, then ``gc.freeze()``, so that later full collections no longer walk what the
    app has built and keeps. Why and what it saves: docs/speed.md §Server."""
    served = getattr(worker, "scorekeeper_served", None)
    if served is not None and next(served) in FREEZE_AFTER:
        gc.collect()
        gc.freeze()
