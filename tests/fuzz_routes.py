"""Hostile requests to every POST route of the app, for ``tests/views/test_fuzz.py`` (a few
hundred examples) and ``bench/fuzz.py`` (10,000 and more).

The routes come from ``app.url_map``, so a new route is covered at once. A :class:`Table`
is an app with an account, a group, a game of each kind with a few entries, an invite and a
second account; :meth:`Table.check` sends one request and asserts the two invariants of
issue 11: never a 5xx, and a refused request (4xx) changes no table.
"""

from __future__ import annotations

import io
import json
import re
import zipfile
from collections import Counter
from dataclasses import dataclass, field

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import select, text
from sqlmodel import SQLModel

#: Tables that keep bookkeeping a refused request may write (login attempt counters, say);
#: every other table must be unchanged after a 4xx.
BOOKKEEPING = re.compile(r"limit|attempt|alembic")

PLAYERS = {"mitchi": ["Ann", "Ben", "Cat"], "mia": ["Ann", "Ben", "Cat"],
           "mice-and-men": ["Ann", "Ben", "Cat", "Dan"]}
ENTRIES = {
    "mitchi": [{"type": "start", "player": "Ann"},
               {"type": "turn", "player": "Ann", "hand": [6, 5], "rolls": 2}],
    "mia": [{"type": "start", "player": "Ben"}, {"type": "announce", "player": "Ben", "value": 43}],
    "mice-and-men": [{"type": "announce", "player": "Ann", "penalty": 3}, {"type": "join", "player": "Ben"}],
}
KEYS = ["version", "type", "player", "owner", "die", "rolls", "value", "penalty", "announced",
        "hand.0", "hand.1", "hand.2", "hand", "cup.0", "cup.1", "dice.0", "dice.1", "dice.2",
        "seats", "starter", "action", "players-0", "players-1", "players-2", "players-3", "players-4",
        "opt_point_limit", "opt_rounds", "opt_opening_range-0", "opt_opening_range-1", "opt_run_penalty",
        "opt_tie", "opt_lives", "opt_order", "opt_first_player", "username", "password", "confirm",
        "remember", "timezone", "mode", "name", "next", "csrf_token", "group_id", "role"]
#: Routes after which the saved login may no longer hold (a logout may end every copy of it).
LOGIN_CHANGES = {"auth.logout", "auth.login", "auth.register", "groups.leave", "groups.invite"}
TYPES = ["start", "startroll", "turn", "tiebreak", "announce", "pass", "challenge", "reverse", "first",
         "join", "run", "reveal"]

huge = st.sampled_from(["9" * 20, str(2**31), str(2**63), str(-2**63 - 1), "9" * 4300, "1" * 5000,
                        "1e308", "-0", "+5", " 7 ", "٣", "²", "0x10", "NaN", "inf"])
hostile = st.sampled_from(["\x00", "A\x00nn", "\ud7ff", "=1+2", "<script>x</script>", "' OR 1=1 --",
                           "\u202eAnn", "Ann\u0301", "e\u0301", "\ufeff", " Ann ", "ANN", "a" * 41,
                           "\t", "\r\n", "%00", "../../etc/passwd", "{{7*7}}", "x" * 5000, ""])
small = st.integers(min_value=-3, max_value=70).map(str)


@dataclass
class Table:
    """An app set up for fuzzing: ids and names to aim at, and counts of what was answered."""

    app: object
    client: object
    games: dict[str, int] = field(default_factory=dict)
    ids: list[int] = field(default_factory=list)
    tokens: list[str] = field(default_factory=list)
    statuses: Counter = field(default_factory=Counter)
    cookies: dict[str, str] = field(default_factory=dict)

    # --- setting up ----------------------------------------------------------------------

    @classmethod
    def set_up(cls, app) -> "Table":
        client = app.test_client()
        table = cls(app, client)
        for name, password in (("bob", "sturdy lantern 42"), ("ann", "correct horse 42")):
            r = client.post("/register", data={"username": name, "password": password, "confirm": password})
            assert r.status_code == 303, r.data[-500:]
            if name == "bob":
                client.post("/logout")
        for game, players in PLAYERS.items():
            doc = {"format": 1, "game": game, "players": players, "options": {}, "entries": ENTRIES[game]}
            r = client.post("/import", data={"records": [(io.BytesIO(json.dumps(doc).encode()), "g.json")]},
                            content_type="multipart/form-data")
            assert r.status_code == 303, r.data[-800:]
            table.games[game] = int(re.search(r"/games/(\d+)", r.headers["Location"]).group(1))
        client.post("/groups/invites", data={})
        with app.app_context():
            with app.extensions["scorekeeper.engine"].connect() as conn:
                for t in SQLModel.metadata.sorted_tables:
                    if "id" in t.c:
                        table.ids += [row[0] for row in conn.execute(select(t.c.id))]
                invite = SQLModel.metadata.tables.get("invite")
                if invite is not None and "token" in invite.c:
                    table.tokens += [row[0] for row in conn.execute(select(invite.c.token))]
        table.ids = sorted(set(table.ids))
        table.remember_login()
        return table

    def log_in(self) -> None:
        """Log in as ann again for real (after a request that logged out or in as another)."""
        for key in [c.key for c in self.client._cookies.values()]:
            self.client.delete_cookie(key)
        r = self.client.post("/login", data={"username": "ann", "password": "correct horse 42"})
        assert r.status_code == 303, r.data[-500:]
        self.remember_login()

    def remember_login(self) -> None:
        self.cookies = {c.key: c.value for c in self.client._cookies.values()}

    def login_again(self) -> None:
        for key in [c.key for c in self.client._cookies.values()]:
            self.client.delete_cookie(key)
        for key, value in self.cookies.items():
            self.client.set_cookie(key, value)

    # --- the tables ------------------------------------------------------------------------

    def dump(self) -> dict[str, list[tuple]]:
        """Every row of every table (bookkeeping left out), in primary-key order."""
        out = {}
        with self.app.extensions["scorekeeper.engine"].connect() as conn:
            for t in SQLModel.metadata.sorted_tables:
                if BOOKKEEPING.search(t.name):
                    continue
                order = list(t.primary_key.columns) or list(t.c)
                out[t.name] = [tuple(r) for r in conn.execute(select(t).order_by(*order))]
        return out

    def version(self, game_id: int) -> int:
        with self.app.extensions["scorekeeper.engine"].connect() as conn:
            v = conn.execute(text("SELECT version FROM game WHERE id = :i"), {"i": game_id}).scalar()
        return v or 0

    def next_entry(self, game: str) -> dict:
        """What the engine says comes next in ``game`` (``{"type", "player"}``, either may be a
        list or None), from a replay of its stored log."""
        from scorekeeper.rules import record as records

        with self.app.extensions["scorekeeper.engine"].connect() as conn:
            row = conn.execute(text("SELECT game, players, options FROM game WHERE id = :i"),
                               {"i": self.games[game]}).first()
            log = [json.loads(d) for (d,) in conn.execute(text(
                "SELECT data FROM entry WHERE game_id = :i AND status = 'active' ORDER BY seq"),
                {"i": self.games[game]})]
        try:
            return records.replay(records.make_record(row[0], json.loads(row[1]), json.loads(row[2]), log))["next"] or {}
        except Exception:
            return {}

    # --- one request -------------------------------------------------------------------------

    def post_rules(self) -> list:
        return sorted((r for r in self.app.url_map.iter_rules() if "POST" in r.methods), key=lambda r: r.rule)

    def resolve(self, fields: dict, game: str) -> dict:
        """Fill in what depends on the game as it stands: ``@v`` (``@v-1``, ``@v+1``) is its
        version; ``@entry`` becomes the fields of an entry, of the engine's next type and
        player when ``follow`` (drawn values are never drawn from the state: hypothesis
        replays them)."""
        version = self.version(self.games[game])
        out = {}
        for key, value in fields.items():
            if key == "@entry":
                out.update(self._entry(json.loads(value), version))
            elif value in ("@v", "@v-1", "@v+1"):
                out[key] = str(version + {"@v": 0, "@v-1": -1, "@v+1": 1}[value])
            else:
                out[key] = value
        return out

    def _entry(self, d: dict, version: int) -> dict:
        kind, player = d["type"], d["player"]
        if d["follow"]:
            nxt = self.next_entry(d["game"])
            kinds = nxt.get("type")
            kind = kinds if isinstance(kinds, str) else (kinds[0] if kinds else kind)
            player = nxt.get("player") if isinstance(nxt.get("player"), str) else player
        f, faces = {"version": str(version), "type": kind, "player": player}, d["faces"]
        if kind in ("turn", "tiebreak"):
            f.update({"hand.0": faces[0], "hand.1": faces[1], "rolls": d["rolls"]})
        elif kind == "startroll":
            f["die"] = faces[0]
        elif kind in ("announce", "pass") and d["game"] == "mia":
            f["value"] = d["value"]
        elif kind == "challenge":
            f.update({"cup.0": faces[0], "cup.1": faces[1]})
        elif kind == "announce":
            f["penalty"] = d["penalty"]
        elif kind in ("reveal", "run"):
            f.update({"dice.0": faces[0], "dice.1": faces[1], "dice.2": faces[2]})
        if d.get("spoil"):
            f[d["spoil"][0]] = d["spoil"][1]
        return f

    def check(self, url: str, kind: str, fields: dict, files: list, raw: bytes, endpoint: str,
              game: str = "mitchi") -> int:
        """Send one POST; assert no 5xx and, for a 4xx, no table changed. Returns the status."""
        self.login_again()
        fields = self.resolve(fields, game)
        before = self.dump()
        if kind == "json":
            r = self.client.post(url, data=raw, content_type="application/json")
        elif kind == "raw":
            r = self.client.post(url, data=raw, content_type="application/x-www-form-urlencoded")
        elif kind == "multipart" or files:
            data = {k: v for k, v in fields.items()}
            data["records"] = [(io.BytesIO(body), name) for name, body in files]
            r = self.client.post(url, data=data, content_type="multipart/form-data")
        else:
            r = self.client.post(url, data=fields)
        self.statuses[(endpoint, r.status_code)] += 1
        if r.status_code < 400 and endpoint in LOGIN_CHANGES:
            self.log_in()
        assert r.status_code < 500, (url, kind, fields, r.status_code, r.data[-1500:])
        if 400 <= r.status_code < 500:
            after = self.dump()
            changed = [t for t in before if before[t] != after.get(t)]
            assert not changed, (url, kind, fields, r.status_code, changed)
        return r.status_code


# --- strategies -------------------------------------------------------------------------------


def _record(draw, table: Table) -> bytes:
    game = draw(st.sampled_from(sorted(PLAYERS)))
    doc = {"format": 1, "game": game, "players": list(PLAYERS[game]), "options": {},
           "entries": list(ENTRIES[game])}
    mutation = draw(st.sampled_from(["none", "played_at", "history", "players", "entries", "options",
                                     "format", "nested", "bytes", "zip", "bigint"]))
    if mutation == "played_at":
        doc["played_at"] = draw(st.one_of(st.sampled_from(["9999-12-31T23:59:59", "0001-01-01T00:00:00+14:00",
                                                           "1970-01-01T00:00:00Z", "2100-12-31T23:59:59-12:00",
                                                           "yesterday"]), hostile, st.integers()))
    elif mutation == "history":
        doc["history"] = draw(st.lists(st.fixed_dictionaries(
            {"seq": st.one_of(st.integers(-2, 2**64), hostile), "status": st.sampled_from(["undone", "replaced", "active", 1]),
             "entry": st.one_of(st.fixed_dictionaries({"type": st.sampled_from(TYPES), "player": st.sampled_from(["Ann", "Zed", 1])}),
                                st.integers(), hostile),
             "at": st.one_of(st.none(), hostile, st.sampled_from(["2026-11-28T20:00:00Z", "9999-01-01T00:00:00"]))}),
            max_size=3))
    elif mutation == "players":
        doc["players"] = draw(st.lists(st.one_of(hostile, st.text(max_size=50), st.integers()), max_size=9))
    elif mutation == "entries":
        doc["entries"] = draw(st.lists(st.dictionaries(st.sampled_from(["type", "player", "hand", "penalty",
                                                                        "value", "die", "rolls", "dice", "cup"]),
                                                       st.one_of(st.integers(), hostile, st.sampled_from(TYPES),
                                                                 st.lists(st.integers(-1, 8), max_size=4),
                                                                 st.none())), max_size=6))
    elif mutation == "options":
        doc["options"] = draw(st.dictionaries(st.sampled_from(["point_limit", "rounds", "run_penalty", "lives",
                                                               "opening_range", "order", "x"]),
                                              st.one_of(st.integers(), hostile, st.lists(st.integers(), max_size=3),
                                                        st.booleans(), st.none())))
    elif mutation == "format":
        doc["format"] = draw(st.one_of(st.integers(), hostile, st.booleans(), st.none()))
    elif mutation == "nested":
        return b"[" * draw(st.integers(1, 100_000))
    elif mutation == "bytes":
        return draw(st.binary(max_size=300))
    elif mutation == "bigint":
        doc["entries"] = [{"type": "announce", "player": doc["players"][0], "penalty": 10 ** draw(st.integers(9, 600))}]
    body = json.dumps(doc).encode()
    if mutation == "zip":
        buf = io.BytesIO()
        with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
            z.writestr(draw(st.sampled_from(["games.json", "a.json", "games.csv", "x/../b.json"])), body)
        data = bytearray(buf.getvalue())
        for _ in range(draw(st.integers(0, 3))):
            if data:
                i = draw(st.integers(0, len(data) - 1))
                data[i] = draw(st.integers(0, 255))
        return bytes(data)
    return body


def _plausible(draw, endpoint: str, game: str) -> dict:
    """Fields a real page could send (so requests get past the first checks and change things),
    with now and then one value made hostile."""
    players = PLAYERS[game]
    face = st.integers(1, 6).map(str)
    if endpoint in ("games.add_entry", "games.correct"):
        # Resolved when sent (:meth:`Table.resolve`): the engine's next type and player, or these.
        kind = draw(st.sampled_from({"mitchi": ["turn", "tiebreak", "startroll"],
                                     "mia": ["announce", "pass", "challenge", "reverse"],
                                     "mice-and-men": ["join", "run", "announce", "reveal", "first"]}[game]))
        fields = {"@entry": json.dumps({
            "game": game, "follow": draw(st.booleans()), "type": kind, "player": draw(st.sampled_from(players)),
            "faces": [draw(face) for _ in range(3)], "rolls": draw(st.sampled_from("123")),
            "value": draw(st.sampled_from(["21", "65", "54", "66", "31", "32", "43", "11"])),
            "penalty": draw(st.integers(1, 12).map(str)),
            "spoil": draw(st.one_of(st.none(), st.tuples(st.sampled_from(
                ["version", "type", "player", "hand.0", "rolls", "die", "value", "penalty", "cup.1", "dice.2"]),
                st.one_of(huge, hostile))))})}
        return fields
    elif endpoint == "games.setup":
        n = draw(st.integers(3, 6)) if game != "mice-and-men" else draw(st.integers(4, 7))
        names = draw(st.permutations(["Ann", "Ben", "Cat", "Dan", "Eve", "Jörg", "=1+2", "José"]))
        fields = {"seats": str(n), "starter": draw(st.sampled_from(["0", "1", "rolloff"])),
                  "action": draw(st.sampled_from(["create", "create", "create", "add", "up-1", "pick-1"]))}
        for i in range(n):
            fields[f"players-{i}"] = names[i]
        from scorekeeper.rules import find_game

        for option in find_game(game).options:  # what the setup page offers preselected
            key = "opt_" + option.name.replace("-", "_")
            if isinstance(option.default, (list, tuple)):
                fields.update({f"{key}-{i}": str(v) for i, v in enumerate(option.default)})
            elif option.default is True:
                fields[key] = "y"
            elif option.default is not False:
                fields[key] = str(option.default)
    elif endpoint == "history.settings":
        fields = {"timezone": draw(st.sampled_from(["UTC", "Pacific/Kiritimati", "Etc/GMT+12", "Europe/Berlin"]))}
    elif endpoint in ("groups.new", "groups.rename"):
        fields = {"name": draw(st.sampled_from(["Friday", "Jörg's", "=1+2", "x" * 40]))}
    else:
        fields = {}
    if fields and draw(st.integers(0, 3)) == 0:
        key = draw(st.sampled_from(sorted(fields)))
        fields[key] = draw(st.one_of(huge, hostile))
    return fields


def request_strategy(table: Table):
    """One request: ``(url, kind, fields, files, raw, endpoint)``."""
    rules = table.post_rules()
    ids = table.ids + [0, 2**31 - 1]

    @st.composite
    def build(draw):
        rule = draw(st.sampled_from(rules))
        args = {}
        game = draw(st.sampled_from(sorted(table.games)))
        for arg in rule.arguments:
            if arg == "game_id":
                args[arg] = table.games[game] if draw(st.integers(0, 4)) else draw(st.sampled_from(ids))
            elif arg == "seq":
                args[arg] = draw(st.integers(0, 6))
            elif arg == "name":
                args[arg] = game if draw(st.integers(0, 3)) else draw(st.one_of(st.text(min_size=1, max_size=20,
                                           alphabet=st.characters(codec="utf-8", exclude_characters="/?#%"))))
            elif arg == "token":
                args[arg] = draw(st.one_of(st.sampled_from(table.tokens or ["x"]), st.text(
                    min_size=1, max_size=30, alphabet=st.characters(codec="utf-8", exclude_characters="/?#%"))))
            elif arg == "rest":
                args[arg] = draw(st.sampled_from(["a", "a/b", "summary", "chart.svg"]))
            else:
                args[arg] = draw(st.sampled_from(ids))
        url = rule.build(args, append_unknown=False)[1]
        players = PLAYERS[game]
        values = st.one_of(
            st.sampled_from(["@v", "@v-1", "@v+1"]),
            st.sampled_from(players + TYPES + ["create", "add", "up-1", "down-0", "pick-1", "rolloff",
                                               "y", "UTC", "Europe/Berlin", "quick", "trail"]),
            small, huge, hostile, st.text(max_size=30),
        )
        if draw(st.integers(0, 9)) < 5:
            fields = _plausible(draw, rule.endpoint, game)
        else:
            fields = draw(st.dictionaries(st.sampled_from(KEYS), values, max_size=10))
        if draw(st.integers(0, 3)) == 0:
            fields.setdefault("version", "@v")
            fields.setdefault("player", draw(st.sampled_from(players)))
            fields.setdefault("type", draw(st.sampled_from(TYPES)))
        kind = draw(st.sampled_from(["form"] * 8 + ["multipart", "json", "json", "raw"]))
        files, raw = [], b""
        if kind == "multipart" or (rule.endpoint.endswith("import_games") and draw(st.booleans())):
            files = [(draw(st.sampled_from(["r.json", "games.zip", "x", "\u00e9.json"])), _record(draw, table))
                     for _ in range(draw(st.integers(1, 3)))]
        if kind == "json":
            raw = draw(st.one_of(st.just(b"[" * 100_000), st.binary(max_size=100),
                                 st.builds(lambda d: json.dumps(d).encode(), st.dictionaries(st.sampled_from(KEYS), values))))
        elif kind == "raw":
            raw = draw(st.one_of(st.binary(max_size=300), st.just(b"a=%00&b=%ff%fe&" * 50),
                                 st.just(b"version=" + b"9" * 5000)))
        return url, kind, fields, files, raw, rule.endpoint, game

    return build()


def fuzz(table: Table, examples: int):
    """The hypothesis test over ``table``: call it to run ``examples`` requests."""

    @settings(max_examples=examples, deadline=None, database=None, derandomize=False,
              suppress_health_check=list(HealthCheck))
    @given(request_strategy(table))
    def run(request):
        table.check(*request)

    return run
