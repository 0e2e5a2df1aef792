"""`scorekeeper replay FILE`: JSON on stdout, exit 2 with a clear line otherwise."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from scorekeeper import gunicorn_conf

RECORDS = Path(__file__).parent / "records"


def replay(path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "scorekeeper.cli", "replay", str(path)],
                          capture_output=True, text=True, timeout=60)


def test_replay_prints_verdict(tmp_path):
    case = json.loads((RECORDS / "mitchi" / "mitchi-seed-tiebreak-example.json").read_text())
    f = tmp_path / "r.json"
    f.write_text(json.dumps(case["record"]))
    p = replay(f)
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout)
    assert out["scores"] == {"A": 8, "B": 0, "C": 0}
    assert out["next"] == {**out["next"], "type": "turn", "player": "A"}


@pytest.mark.parametrize(
    "content,starts",
    [
        ('{"format": 1, "game": "mitchi", "players": ["A", "B"], "options": {}, "entries": '
         '[{"type": "start", "player": "A"}, {"type": "turn", "player": "A", "hand": [7, 1], "rolls": 1}]}',
         "entry 2: a die shows 1 to 6, not 7"),
        ('{"format": 2, "game": "mitchi", "players": ["A", "B"], "entries": []}', "record: format must be 1"),
        ('{"format": 1, "game": "chess", "players": ["A", "B"], "entries": []}', "record: game must be one of"),
        ("{not json", "record: not valid JSON"),
        ('[1, 2]', "record: a game record is a JSON object"),
        ('{"format": 1, "game": "mitchi", "players": ["A", "B"], "options": {}, "entries": [5]}', "entry 1:"),
    ],
)
def test_replay_refuses_with_exit_2(tmp_path, content, starts):
    f = tmp_path / "r.json"
    f.write_text(content)
    p = replay(f)
    assert p.returncode == 2
    assert p.stderr.startswith(starts), p.stderr
    assert "Traceback" not in p.stderr and p.stdout == ""


def test_replay_of_an_export_says_it_takes_one_record(tmp_path):
    """The app's exports hold several records: "Export all (JSON)" a list, "Export all" a zip.
    Replay says what the file is and what it reads, not only that a record is an object or that
    the zip's bytes are not UTF-8 (a playtest could not tell why its export was refused)."""
    import zipfile

    record = json.loads((RECORDS / "mitchi" / "mitchi-seed-tiebreak-example.json").read_text())["record"]
    listed = tmp_path / "games.json"
    listed.write_text(json.dumps([record, record]))
    p = replay(listed)
    assert p.returncode == 2 and p.stdout == ""
    assert p.stderr.startswith("record: a game record is a JSON object, not a list (this one holds 2"), p.stderr
    assert "replay one record at a time" in p.stderr
    zipped = tmp_path / "scorekeeper-export.zip"
    with zipfile.ZipFile(zipped, "w") as z:
        z.writestr("games/1.json", json.dumps(record))
    p = replay(zipped)
    assert p.returncode == 2 and p.stdout == ""
    assert p.stderr.startswith("record: this is a zip file"), p.stderr
    assert "unzip it and replay one of its .json records" in p.stderr
    rounds = tmp_path / "games.csv"
    rounds.write_bytes("\ufeffgame_id,game,played_at,round,seat,player,action,detail,change,score_after\n".encode())
    p = replay(rounds)
    assert p.returncode == 2 and p.stderr.startswith("record: this is the app's CSV of rounds"), p.stderr


def test_replay_missing_file(tmp_path):
    p = replay(tmp_path / "nope.json")
    assert p.returncode == 2 and p.stderr.startswith("record: cannot read")
    assert "Traceback" not in p.stderr


def test_replay_binary_garbage(tmp_path):
    f = tmp_path / "r.json"
    f.write_bytes(b"\xff\xfe\x00garbage")
    p = replay(f)
    assert p.returncode == 2 and "Traceback" not in p.stderr


def test_replay_deeply_nested_json(tmp_path):
    f = tmp_path / "deep.json"
    f.write_text("[" * 100_000 + "]" * 100_000)
    p = replay(f)
    assert p.returncode == 2 and p.stderr.startswith("record: not a game record: the JSON is nested too deeply")
    assert "Traceback" not in p.stderr


ROOT = Path(__file__).resolve().parent.parent


def test_replay_imports_no_web_framework(tmp_path):
    # The replay path of the command: only the standard library and scorekeeper.rules.
    # Nor the parts of the standard library that only other commands need (docs/speed.md
    # §Replay's start-up): argparse (and the shutil and locale its help imports), pathlib.
    code = (
        "import sys\n"
        "before = set(sys.modules)\n"
        "import scorekeeper.cli as cli\n"
        "status = cli.main(['replay', sys.argv[1]])\n"
        "web = sorted(m for m in sys.modules if m.split('.')[0] in "
        "('flask', 'werkzeug', 'jinja2', 'sqlalchemy', 'sqlmodel', 'flask_login', 'flask_wtf', 'htmx_flask'))\n"
        "ours = sorted(m for m in sys.modules if m.startswith('scorekeeper.') and not m.startswith('scorekeeper.rules'))\n"
        "slow = sorted({'argparse', 'shutil', 'locale', 'pathlib', 'dataclasses', 'typing'} & (set(sys.modules) - before))\n"
        "print('MODULES', web, ours, slow, status, file=sys.stderr)\n"
    )
    p = subprocess.run([sys.executable, "-c", code, str(ROOT / "docs" / "examples" / "mitchi-sample.json")],
                       capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    assert "MODULES [] ['scorekeeper.cli'] [] 0" in p.stderr
    # ...and the app still builds from the package as before.
    from scorekeeper import create_app
    assert callable(create_app)


def test_the_editable_install_imports_nothing_at_start_up():
    """The package is installed as a plain path (pyproject's ``package-dir``), not through
    setuptools' import finder, which imports pathlib and fnmatch into every Python start of the
    environment: a sixth of `scorekeeper replay` on a 1,000-round record (docs/speed.md
    §Replay's start-up). An environment installed before the change fails here: run
    ``pip install -e .`` again."""
    p = subprocess.run([sys.executable, "-c", "import sys; print(sorted({'pathlib', 'fnmatch'} & set(sys.modules)))"],
                       capture_output=True, text=True, timeout=60)
    assert p.stdout.strip() == "[]", p.stdout


def test_replay_help_gives_the_exit_codes():
    p = subprocess.run([sys.executable, "-m", "scorekeeper.cli", "replay", "--help"],
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 0
    assert "exit codes:" in p.stdout and "\n  0  " in p.stdout and "\n  2  " in p.stdout
    assert "entry N:" in p.stdout and "record:" in p.stdout


def test_the_shipped_sample_replays_as_the_readme_shows():
    p = replay(ROOT / "docs" / "examples" / "mitchi-sample.json")
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout)
    assert out["finished"] and out["winners"] == ["Ann"]
    assert out["scores"] == {"Ann": 1, "Ben": 5, "Cat": 4}
    assert [(r["number"], r["taker"], r["pot"]) for r in out["rounds"]] == [
        (1, "Ben", 1), (2, "Cat", 2), (3, "Ann", 1), (4, "Cat", 2), (5, "Ben", 1), (6, "Ben", 2), (7, "Ben", 1)]
    assert out["rounds"][3]["tie_breaks"][0]["order"] == ["Cat", "Ben"]
    readme = (ROOT / "README.md").read_text()
    assert "scorekeeper replay docs/examples/mitchi-sample.json" in readme
    for line in p.stdout.splitlines():
        if not line.startswith("  {"):  # the long round lines are shortened in the README
            assert line in readme, line


def test_replay_output_is_one_json_object_with_a_round_per_line():
    p = replay(ROOT / "bench" / "data" / "mitchi-10-rounds.json")
    assert p.returncode == 0, p.stderr
    lines = p.stdout.splitlines()
    assert lines[0] == "{" and lines[-1] == "}"
    assert sum(1 for line in lines if line.startswith('  {"number": ')) == 10
    assert len(json.loads(p.stdout)["rounds"]) == 10


def test_serve_runs_gunicorn_with_its_settings_module(tmp_path, monkeypatch):
    """`scorekeeper serve` sets gunicorn up with scorekeeper.gunicorn_conf, as the README's
    command for several instances does (threads, keep-alive, no control socket: gunicorn's is
    one path per account, so a second server on the same machine would take it over from the
    first), with the address and workers it is given."""
    from gunicorn.app.base import BaseApplication

    from scorekeeper import cli

    seen = {}

    def run(self):  # instead of serving: what the server was set up with
        seen.update({key: self.cfg.settings[key].get() for key in
                     ("bind", "workers", "threads", "keepalive", "control_socket_disable",
                      "forwarded_allow_ips", "pre_fork", "post_fork", "post_request")})

    monkeypatch.setattr(BaseApplication, "run", run)
    monkeypatch.setenv("DATABASE_URL", f"sqlite:///{tmp_path / 'serve.sqlite3'}")
    monkeypatch.setenv("SECRET_KEY", "serve-test")  # else one is made and kept in the checkout's instance/
    assert cli.serve("127.0.0.1", 5399, 3) == 0
    assert seen == {"bind": ["127.0.0.1:5399"], "workers": 3, "threads": 2, "keepalive": 65,
                    "control_socket_disable": True, "forwarded_allow_ips": [],
                    "pre_fork": gunicorn_conf.pre_fork, "post_fork": gunicorn_conf.post_fork,
                    "post_request": gunicorn_conf.post_request}


@pytest.mark.parametrize("option, value", [("--workers", "0"), ("--workers", "-1"), ("--workers", "65"),
                                           ("--workers", "two"), ("--port", "0"), ("--port", "70000")])
def test_serve_refuses_a_bad_number_before_serving(option, value):
    """`scorekeeper serve --workers 0` started a server that never answered, after saying it was
    serving (found by a review); a bad number is refused first, saying what is valid."""
    p = subprocess.run([sys.executable, "-m", "scorekeeper.cli", "serve", option, value],
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 2, p.stdout + p.stderr
    assert "serving" not in p.stdout
    assert f"argument {option}: '{value}' is not" in p.stderr and " from 1 to " in p.stderr, p.stderr


@pytest.mark.parametrize("usable, taken, workers, cpu", [
    ({0, 1}, [], 2, 0),  # the first worker of two on two cores
    ({0, 1}, [0], 2, 1),  # the second: the other core
    ({0, 1}, [1], 2, 0),  # the first died and is replaced: the core it left
    ({0, 1}, [0, 1], 3, 0),  # three on two: the lowest of a tie
    ({0, 1}, [0, 1, 0], 4, 1),
    ({2, 5}, [5], 2, 2),  # the server may run on some CPUs only: those
    ({0, 1}, [None], 2, 0),  # another worker not pinned (it was forked with pinning off)
    ({0, 1, 2, 3}, [], 2, None),  # fewer workers than CPUs: the scheduler's
    ({0}, [], 2, None),  # one CPU: nothing to choose
])
def test_cpu_for_worker(usable, taken, workers, cpu):
    """Which CPU a new gunicorn worker is pinned to (docs/speed.md §Server)."""
    assert gunicorn_conf.cpu_for_worker(usable, taken, workers) == cpu


def _workers(master: int, count: int, but: frozenset = frozenset()) -> dict[int, set[int]]:
    """``{pid: CPUs it may run on}`` of the ``count`` gunicorn workers of ``master`` (other than
    ``but``), once there are that many."""
    import os
    import time

    for _ in range(300):
        found = {}
        for entry in os.listdir("/proc"):
            if entry.isdigit() and int(entry) not in but:
                try:
                    stat = Path(f"/proc/{entry}/stat").read_text()
                except OSError:
                    continue
                if int(stat.rsplit(")", 1)[1].split()[1]) == master:  # its parent
                    found[int(entry)] = os.sched_getaffinity(int(entry))
        if len(found) == count:
            time.sleep(0.3)  # a worker pins itself as it starts: read again once settled
            return {pid: os.sched_getaffinity(pid) for pid in found}
        time.sleep(0.1)
    raise AssertionError(f"gunicorn did not run {count} workers")


@pytest.mark.skipif(not hasattr(__import__("os"), "sched_getaffinity"), reason="no CPU affinity here")
def test_gunicorn_runs_each_worker_on_a_cpu_of_its_own(tmp_path):
    """With as many workers as CPUs, gunicorn_conf pins each worker to a CPU of its own, and a
    worker that dies is replaced on the CPU it left; SCOREKEEPER_PIN_WORKERS=0 leaves them to
    the scheduler (docs/speed.md §Server)."""
    import os
    import signal

    from .test_instances import free_port

    if len(os.sched_getaffinity(0)) < 2:
        pytest.skip("one CPU: nothing to pin")
    usable = set(sorted(os.sched_getaffinity(0))[:2])  # the server runs on two CPUs, whatever the machine has
    for pin in ("1", "0"):
        env = {**os.environ, "DATABASE_URL": f"sqlite:///{tmp_path / 'pin.sqlite3'}", "SECRET_KEY": "pin-test",
               "SCOREKEEPER_PIN_WORKERS": pin}
        proc = subprocess.Popen([sys.executable, "-m", "gunicorn", "-c", "python:scorekeeper.gunicorn_conf",
                                 "-w", str(len(usable)), "-b", f"127.0.0.1:{free_port()}",
                                 "scorekeeper:create_app()"],
                                cwd=Path(__file__).resolve().parent.parent, env=env,
                                preexec_fn=lambda: os.sched_setaffinity(0, usable),
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            workers = _workers(proc.pid, len(usable))
            if pin == "0":
                assert all(cpus == usable for cpus in workers.values()), workers
                continue
            assert sorted(workers.values(), key=min) == [{cpu} for cpu in sorted(usable)], workers
            gone = max(workers)
            os.kill(gone, signal.SIGKILL)
            again = _workers(proc.pid, len(usable), but=frozenset({gone}))
            assert sorted(again.values(), key=min) == [{cpu} for cpu in sorted(usable)], again
            new = set(again) - set(workers)
            assert len(new) == 1 and again[new.pop()] == workers[gone]
        finally:
            proc.terminate()
            proc.wait(timeout=30)


def test_a_worker_freezes_what_it_holds_after_its_1st_10th_100th_and_1000th_request():
    """gunicorn_conf's hooks (docs/speed.md §Server): a worker counts its requests and, after
    the milestones only, collects and freezes (real ``gc``; unfrozen again after each check)."""
    import gc
    import types

    worker = types.SimpleNamespace()
    gunicorn_conf.post_fork(None, worker)
    frozen_after = []
    try:
        for n in range(1, 1001):
            gunicorn_conf.post_request(worker, None, {}, None)
            if gc.get_freeze_count():
                frozen_after.append(n)
                gc.unfreeze()
    finally:
        gc.unfreeze()
    assert frozen_after == [1, 10, 100, 1000]
    gunicorn_conf.post_request(types.SimpleNamespace(), None, {}, None)  # a worker not forked by it: nothing
    assert gc.get_freeze_count() == 0


def test_serve_believes_no_forwarded_header_unless_told(tmp_path):
    """With TRUSTED_PROXIES at 0 (README) no forwarded header is believed: gunicorn's default
    took X-Forwarded-Proto: https from 127.0.0.1, and the plain answer then set Secure cookies
    and HSTS. With 1, the app's ProxyFix takes it (a proxy in front)."""
    import os
    import socket
    import time
    import urllib.request

    for trusted, https in (("0", False), ("1", True)):
        s = socket.socket()
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
        s.close()
        env = {**os.environ, "DATABASE_URL": f"sqlite:///{tmp_path / 'serve.sqlite3'}", "SECRET_KEY": "serve-test",
               "TRUSTED_PROXIES": trusted}
        proc = subprocess.Popen([sys.executable, "-c", "from scorekeeper.cli import main; main()", "serve",
                                 "--port", str(port), "--workers", "1"], env=env,
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            request = urllib.request.Request(f"http://127.0.0.1:{port}/login", headers={"X-Forwarded-Proto": "https"})
            for _ in range(300):
                try:
                    with urllib.request.urlopen(request, timeout=2) as r:
                        headers = r.headers
                    break
                except OSError:
                    time.sleep(0.1)
            else:
                raise AssertionError("the server did not start")
        finally:
            proc.terminate()
            proc.wait(timeout=30)
        cookies = " ".join(headers.get_all("Set-Cookie") or [])
        assert ("Strict-Transport-Security" in headers) is https, (trusted, dict(headers))
        assert ("Secure" in cookies) is https, (trusted, cookies)
