"""The export streams: written in batches as the games are read, each record once."""

from __future__ import annotations

import io
import json
import zipfile

from scorekeeper.services import transfer

from .test_history import game_ids, golden, upload


def test_export_zip_streams_in_batches_and_matches_each_record(client, auth, monkeypatch):
    auth.register()
    upload(client, [golden("mitchi/mitchi-11-shared-win-zero"), golden("mia/mia-5-skip-eliminated-game-end"),
                    golden("mitchi/mitchi-11-zero-point-winner")])
    monkeypatch.setattr(transfer, "BATCH", 2)  # 3 games: two batches
    r = client.get("/export?format=zip", buffered=False)
    assert r.is_streamed
    chunks = [c for c in r.response if c]
    r.close()  # ends the request: its database session is closed
    assert len(chunks) >= 3  # one piece per batch, then the listings
    z = zipfile.ZipFile(io.BytesIO(b"".join(chunks)))
    names = z.namelist()
    assert names[-2:] == ["games.json", "games.csv"]
    listed = json.loads(z.read("games.json"))
    assert len(listed) == 3
    for game_id, record in zip(game_ids(client)[::-1], listed):
        assert json.loads(z.read(next(n for n in names if n.startswith(f"records/{game_id}-")))) == record
        single = client.get(f"/games/{game_id}/record.json").json
        assert record == single  # the single record carries played_at too (main: export_record)
    rows = z.read("games.csv").decode().splitlines()
    assert len({row.split(",")[0] for row in rows[1:]}) == 3


def test_export_json_streams_the_same_records(client, auth, monkeypatch):
    auth.register()
    upload(client, [golden("mitchi/mitchi-11-shared-win-zero"), golden("mia/mia-5-skip-eliminated-game-end")])
    whole = json.loads(client.get("/export?format=json").data)
    monkeypatch.setattr(transfer, "BATCH", 1)
    r = client.get("/export?format=json", buffered=False)
    body = b"".join(r.response)
    r.close()
    assert r.is_streamed and json.loads(body) == whole and len(whole) == 2
