"""`scorekeeper replay FILE`: JSON on stdout, exit 2 with a clear line otherwise."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

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
