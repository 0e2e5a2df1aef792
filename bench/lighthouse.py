"""Run Lighthouse (npm, pinned 12.8.2) in mobile mode on the main pages; print the scores.

Targets (issue 6): performance >= 95, accessibility = 100, best practices >= 95.
Lighthouse runs on Debian's Chromium (``CHROME_PATH``, default /usr/bin/chromium);
it is installed once into ``bench/node_modules`` with npm.

    .venv/bin/python bench/lighthouse.py
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

import logging  # noqa: E402

from werkzeug.serving import make_server  # noqa: E402

from scorekeeper import create_app  # noqa: E402

LIGHTHOUSE = "12.8.2"
TARGET = {"performance": 95, "accessibility": 100, "best-practices": 95}
FLAGS = ("--headless --no-sandbox --disable-gpu --disable-dev-shm-usage --disable-background-networking "
         "--disable-component-update --disable-sync --no-first-run")


def lighthouse_bin() -> Path:
    binary = HERE / "node_modules" / ".bin" / "lighthouse"
    if not binary.exists():
        subprocess.run(["npm", "install", "--prefix", str(HERE), "--no-save", "--no-audit", "--no-fund",
                        f"lighthouse@{LIGHTHOUSE}"], check=True)
    return binary


def prepare(db: str) -> tuple[dict, str]:
    """An account with one game of each kind; returns page URLs (paths) and the session cookie."""
    app = create_app({"DATABASE_URL": db, "SECRET_KEY": "lighthouse", "WTF_CSRF_ENABLED": False,
                      "TESTING": True})
    client = app.test_client()
    client.post("/register", data={"username": "bench", "password": "tulip carriage 9",
                                   "confirm": "tulip carriage 9"})
    from scorekeeper.rules import find_game

    pages = {"login": "/login", "games": "/", "mitchi quick reference": "/rules/mitchi"}
    for name in ("mitchi", "mia", "mice-and-men"):
        data = {"seats": "4", "starter": "0", "action": "create"}
        for o in find_game(name).options:
            key = "opt_" + o.name.replace("-", "_")
            if o.kind == "range":
                data[key + "-0"], data[key + "-1"] = str(o.default[0]), str(o.default[1])
            elif o.kind != "bool":
                data[key] = str(o.default)
        data.update({f"players-{i}": p for i, p in enumerate(["Ann", "Ben", "Cat", "Dan"])})
        r = client.post(f"/games/new/{name}", data=data)
        pages[f"{name} game"] = r.headers["Location"]
    pages["setup"] = "/games/new/mitchi"
    cookie = client.get_cookie("session")
    return pages, f"session={cookie.value}"


def main() -> int:
    logging.getLogger("werkzeug").setLevel(logging.WARNING)
    binary = lighthouse_bin()
    tmp = tempfile.mkdtemp()
    db = f"sqlite:///{tmp}/lighthouse.sqlite3"
    pages, cookie = prepare(db)
    app = create_app({"DATABASE_URL": db, "SECRET_KEY": "lighthouse"})
    server = make_server("127.0.0.1", 0, app, threaded=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_port}"
    env = {**os.environ, "CHROME_PATH": os.environ.get("CHROME_PATH", "/usr/bin/chromium")}
    failed = False
    print(f"{'page':26} {'performance':>11} {'accessibility':>13} {'best-practices':>14}")
    for label, path in pages.items():
        headers = json.dumps({"Cookie": cookie}) if path != "/login" else "{}"
        out = subprocess.run(
            [str(binary), base + path, "--quiet", f"--chrome-flags={FLAGS}",
             "--only-categories=performance,accessibility,best-practices", "--output=json",
             "--output-path=stdout", f"--extra-headers={headers}", "--form-factor=mobile"],
            capture_output=True, text=True, env=env, timeout=180,
        )
        try:
            report = json.loads(out.stdout)
        except ValueError:
            tail = " ".join(out.stderr.split())[-200:]
            print(f"{label:26} lighthouse failed: {tail}")
            failed = True
            continue
        scores = {k: round((report["categories"][k]["score"] or 0) * 100) for k in TARGET}
        print(f"{label:26} {scores['performance']:>11} {scores['accessibility']:>13} "
              f"{scores['best-practices']:>14}")
        for key, want in TARGET.items():
            if scores[key] < want:
                failed = True
                audits = [a["id"] for a in report["audits"].values()
                          if a.get("score") is not None and a["score"] < 1
                          and a["id"] in {r["id"] for r in report["categories"][key]["auditRefs"]}]
                print(f"  {key} {scores[key]} < {want}: {', '.join(audits[:8])}")
    server.shutdown()
    print("targets: performance >= 95, accessibility 100, best practices >= 95")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
