"""Print the bytes a phone downloads, compressed as the server sends them.

For each game's page: the first load (HTML, CSS, JS, icons), a repeat visit's
HTML (everything else comes from the cache), and one entry's response.
Budgets (issue 6): first load <= 30 KB, repeat HTML <= 8 KB, entry <= 3 KB.

    .venv/bin/python bench/bytes.py
"""

from __future__ import annotations

import re
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from scorekeeper import create_app  # noqa: E402

BUDGET = {"first load": 30_000, "repeat HTML": 8_000, "entry": 3_000}
ENC = {"Accept-Encoding": "br, gzip"}
HX = {**ENC, "HX-Request": "true"}

GAMES = {
    "mitchi": (["Ann", "Ben", "Cat", "Dan"], {"opt_point_limit": "25"},
               {"type": "turn", "player": "Ann", "hand.0": "6", "hand.1": "3", "rolls": "2"}),
    "mia": (["Ann", "Ben", "Cat", "Dan"], {},
            {"type": "announce", "player": "Ann", "value": "43"}),
    "mice-and-men": (["Ann", "Ben", "Cat", "Dan"], {},
                     {"type": "announce", "player": "Ann", "penalty": "3"}),
}


def size(response) -> int:
    return len(response.get_data())


def main() -> int:
    tmp = tempfile.mkdtemp()
    app = create_app({"DATABASE_URL": f"sqlite:///{tmp}/bench.sqlite3", "SECRET_KEY": "bench",
                      "WTF_CSRF_ENABLED": False, "TESTING": True})
    client = app.test_client()
    client.post("/register", data={"username": "bench", "password": "tulip carriage 9",
                                   "confirm": "tulip carriage 9"})
    failed = False
    print(f"{'game':14} {'first load':>11} {'repeat HTML':>12} {'entry':>7}   (bytes, br/gzip as sent)")
    for name, (players, options, entry) in GAMES.items():
        from scorekeeper.rules import find_game

        data = {"seats": str(len(players)), "starter": "0", "action": "create"}
        for o in find_game(name).options:
            key = "opt_" + o.name.replace("-", "_")
            if o.kind == "range":
                data[key + "-0"], data[key + "-1"] = str(o.default[0]), str(o.default[1])
            elif o.kind == "bool":
                if o.default:
                    data[key] = "y"
            else:
                data[key] = str(o.default)
        data.update({f"players-{i}": p for i, p in enumerate(players)})
        data.update(options)
        r = client.post(f"/games/new/{name}", data=data)
        url = r.headers["Location"]
        page = client.get(url, headers=ENC)
        html = client.get(url).get_data(as_text=True)
        # What Chromium fetches for the page: stylesheets, scripts, the icon, the dice sprite and
        # the manifest. The apple-touch-icon is fetched only by iOS when the app is installed.
        assets = {a for a in re.findall(r'(?:href|src)="(/static/[^"#]+)', html) if "apple-touch" not in a}
        assets |= set(re.findall(r'rel="manifest" href="([^"]+)"', html))
        first = size(page) + sum(size(client.get(a, headers=ENC)) for a in assets)
        version = re.search(r'name="version" value="(\d+)"', html).group(1)
        answer = client.post(url + "/entries", data={**entry, "version": version}, headers=HX)
        if answer.status_code != 200:
            print(f"  {name}: the sample entry was refused ({answer.status_code})", file=sys.stderr)
        figures = {"first load": first, "repeat HTML": size(page), "entry": size(answer)}
        print(f"{name:14} {first:>11,} {size(page):>12,} {size(answer):>7,}")
        for key, value in figures.items():
            if value > BUDGET[key]:
                failed = True
                print(f"  over budget: {name} {key} {value:,} > {BUDGET[key]:,}")
    print("budgets: first load <= 30,000; repeat HTML <= 8,000; entry <= 3,000")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
