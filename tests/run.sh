#!/usr/bin/env bash
# Set up everything the tests need and run the suite twice, side by side: on
# SQLite files, and on a real PostgreSQL server started here and stopped after.
# Needs Debian's chromium, postgresql and redis-server packages: installed with
# apt-get when missing (as root, or through sudo). The PostgreSQL run also gets a
# throwaway Redis server, for the test of two app instances sharing their limits.
set -euo pipefail
cd "$(dirname "$0")/.."

pg_bin() { ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1; }

missing=()
[ -x "${CHROMIUM:-/usr/bin/chromium}" ] || missing+=(chromium)
[ -n "$(pg_bin)" ] || missing+=(postgresql)
command -v redis-server >/dev/null || missing+=(redis-server)
if [ ${#missing[@]} -gt 0 ]; then
  echo "== installing ${missing[*]} (Debian packages)"
  sudo=""; [ "$(id -u)" = 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
fi

if [ ! -x .venv/bin/python ]; then
  echo "== creating .venv"
  python3 -m venv .venv
fi
echo "== installing Python packages"
.venv/bin/pip install -q --disable-pip-version-check -e '.[test]' 2>&1 | grep -v 'is ignored' || true

# The two runs go side by side, one on each core: the SQLite run's browser tests wait on
# chromium and on their servers much of the time, and the PostgreSQL run on its server. One after
# the other they took 20 to 25 minutes on a 2-core machine.
PG="$(pg_bin)"
tmp="$(mktemp -d)"
port="$(.venv/bin/python -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
as_pg=()
if [ "$(id -u)" = 0 ]; then chown postgres "$tmp"; as_pg=(runuser -u postgres --); fi
redis_port="$(.venv/bin/python -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
redis_pid=""
pg_tests=""
cleanup() {
  if [ -n "$pg_tests" ]; then kill "$pg_tests" 2>/dev/null || true; wait "$pg_tests" 2>/dev/null || true; fi
  "${as_pg[@]}" "$PG/pg_ctl" -D "$tmp/data" -m immediate stop >/dev/null 2>&1 || true
  if [ -n "$redis_pid" ]; then kill "$redis_pid" 2>/dev/null || true; wait "$redis_pid" 2>/dev/null || true; fi
  rm -rf "$tmp"
}
trap cleanup EXIT
"${as_pg[@]}" "$PG/initdb" -D "$tmp/data" -U postgres --auth=trust >/dev/null
"${as_pg[@]}" "$PG/pg_ctl" -D "$tmp/data" -l "$tmp/log" -w \
  -o "-c listen_addresses=127.0.0.1 -p $port -k $tmp -c fsync=off -c synchronous_commit=off" start >/dev/null
"${as_pg[@]}" "$PG/psql" -q -h 127.0.0.1 -p "$port" -U postgres \
  -c "CREATE ROLE scorekeeper LOGIN CREATEDB PASSWORD 'scorekeeper'" \
  -c "CREATE DATABASE scorekeeper OWNER scorekeeper"
redis-server --save '' --appendonly no --bind 127.0.0.1 --port "$redis_port" --dir "$tmp" >"$tmp/redis.log" 2>&1 &
redis_pid=$!
# The pure rules tests touch no database: the SQLite run has them. Of the browser tests (a person
# at the page: the same views, whatever the database), those of two phones at one game run here
# too, where two entries race on PostgreSQL's own write; the rest run on SQLite only.
again=(tests/browser/test_live_browser.py tests/browser/test_double_tap.py)
skip=()
for f in tests/browser/test_*.py; do
  case " ${again[*]} " in *" $f "*) ;; *) skip+=(--ignore="$f") ;; esac
done
echo "== tests on PostgreSQL (in the background; their report follows the SQLite run's)"
TEST_REDIS_URL="redis://127.0.0.1:$redis_port/0" \
TEST_DATABASE_URL="postgresql+psycopg://scorekeeper:scorekeeper@127.0.0.1:$port/scorekeeper" \
  .venv/bin/python -m pytest -q -p no:cacheprovider --basetemp="$tmp/pytest" --ignore=tests/rules "${skip[@]}" "$@" \
  >"$tmp/pg-tests.log" 2>&1 &
pg_tests=$!

echo "== tests on SQLite"
sqlite_rc=0
.venv/bin/python -m pytest -q -p no:cacheprovider "$@" || sqlite_rc=$?

pg_rc=0
wait "$pg_tests" || pg_rc=$?
pg_tests=""
echo "== tests on PostgreSQL"
cat "$tmp/pg-tests.log"
echo "== SQLite run: exit $sqlite_rc; PostgreSQL run: exit $pg_rc"
[ "$sqlite_rc" = 0 ] && [ "$pg_rc" = 0 ]
