"""Time `scorekeeper replay` as a person runs it: a new process each time, wall clock.

    .venv/bin/python bench/replay_bench.py          # time the two records in bench/data/
    .venv/bin/python bench/replay_bench.py --make   # write them again (deterministic)

Targets (issue 10): a 10-round record in <= 0.10 s, a 1,000-round record in <= 0.15 s, median
of several runs. Prints the figures; exits 1 when a target is missed. Not a CI test.

The package's bytecode is written first (``compileall``), as Python itself writes it on a
person's first run: a shell with ``PYTHONDONTWRITEBYTECODE`` set (some containers and CI
images) never keeps it, and every run then compiles the package's source again, some
40 ms that a person's second run does not pay. The figures are of the runs after the first.
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import random
import resource
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "bench" / "data"
sys.path.insert(0, str(ROOT))

RECORDS = {  # file -> (rounds, target seconds)
    "mitchi-10-rounds.json": (10, 0.10),
    "mitchi-1000-rounds.json": (1000, 0.15),
}
RUNS = 9


def mitchi_game(rounds: int, seed: int, players=("Ann", "Ben", "Cat", "Dan"), point_limit: int = 1000,
                to_the_end: bool = False) -> dict:
    """A legal Mitchi record of ``rounds`` finished rounds (or to the end), dice from a seeded
    random generator, each entry checked by the engine as it is made."""
    from scorekeeper.rules import find_game
    from scorekeeper.rules.record import make_record

    rng = random.Random(seed)
    spec = find_game("mitchi")
    options = {"point_limit": point_limit}
    state = spec.new_state(tuple(players), dict(options))
    entries = [{"type": "start", "player": players[rng.randrange(len(players))]}]
    state.apply(entries[0])

    def hand():
        return sorted([rng.randint(1, 6), rng.randint(1, 6)], reverse=True)

    while not state.finished and (to_the_end or len(state.finished_rounds) < rounds):
        nxt = state.expected()
        if nxt["type"] == "turn":
            entry = {"type": "turn", "player": nxt["player"], "hand": hand(),
                     "rolls": rng.choice(state.allowed_rolls())}
        else:
            entry = {"type": "tiebreak", "player": nxt["player"], "hand": hand()}
        state.apply(entry)
        entries.append(entry)
    return make_record("mitchi", players, options, entries)


def make() -> None:
    DATA.mkdir(parents=True, exist_ok=True)
    for name, (rounds, _) in RECORDS.items():
        record = mitchi_game(rounds, seed=rounds)
        (DATA / name).write_text(json.dumps(record, separators=(",", ":")) + "\n")
        print(f"wrote bench/data/{name}: {len(record['entries'])} entries")


def command() -> list[str]:
    script = Path(sys.executable).with_name("scorekeeper")
    if script.exists():
        return [str(script), "replay"]
    found = shutil.which("scorekeeper")
    return [found, "replay"] if found else [sys.executable, "-m", "scorekeeper.cli", "replay"]


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def time_replay(path: Path, rounds: int) -> tuple[float, float]:
    """Median wall time and median CPU time (user + system) of RUNS replays of ``path``, each
    checked: exit 0, every round there."""
    cmd = command() + [str(path)]
    times, cpus = [], []
    for _ in range(RUNS):
        cpu = children_cpu()
        start = time.perf_counter()
        done = subprocess.run(cmd, capture_output=True, cwd=ROOT)
        times.append(time.perf_counter() - start)
        cpus.append(children_cpu() - cpu)
        if done.returncode != 0:
            sys.exit(f"replay of {path.name} failed ({done.returncode}): {done.stderr.decode()[:200]}")
        if len(json.loads(done.stdout)["rounds"]) != rounds:
            sys.exit(f"replay of {path.name} did not give {rounds} rounds")
    return statistics.median(times), statistics.median(cpus)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--make", action="store_true", help="write the records in bench/data/ again")
    if parser.parse_args().make:
        make()
        return 0
    load = os.getloadavg()[0]
    print(f"load average {load:.1f} on {os.cpu_count()} cores"
          + ("  (busy machine: wall times are inflated; CPU times show the work)" if load > (os.cpu_count() or 1) else ""))
    # What a person's first run leaves behind (docstring): the package's bytecode, kept in
    # __pycache__ (ignored by git). compileall writes it whatever PYTHONDONTWRITEBYTECODE says.
    if not compileall.compile_dir(ROOT / "scorekeeper", quiet=1):
        sys.exit("compiling the package's bytecode failed")
    print("bytecode of scorekeeper/ written first, as a first run writes it")
    baseline, baseline_cpu = [], []
    for _ in range(RUNS):
        cpu = children_cpu()
        start = time.perf_counter()
        subprocess.run([sys.executable, "-c", "pass"], check=True)
        baseline.append(time.perf_counter() - start)
        baseline_cpu.append(children_cpu() - cpu)
    print(f"python -c pass: {statistics.median(baseline):.3f} s wall, {statistics.median(baseline_cpu):.3f} s CPU "
          f"(median of {RUNS}, for scale)")
    missed = 0
    for name, (rounds, target) in RECORDS.items():
        path = DATA / name
        if not path.exists():
            sys.exit(f"{path} is missing: run with --make")
        took, cpu = time_replay(path, rounds)
        ok = took <= target
        missed += not ok
        print(f"replay {name} ({rounds} rounds, {path.stat().st_size // 1024} KB): {took:.3f} s wall, "
              f"{cpu:.3f} s CPU (target <= {target:.2f} s wall) {'ok' if ok else 'MISSED'}")
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
