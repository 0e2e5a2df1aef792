#!/usr/bin/env bash
# Set up everything the tests need and run the whole suite twice: on SQLite
# files, then on a real PostgreSQL server started here and stopped after.
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

# Two pytest-xdist workers, each given whole files (--dist loadfile): the browser tests mostly
# wait (on the page's tap guards, its live poll), so two at once take some half the time, and a
# file's tests stay in their order on one worker. On PostgreSQL each worker has a database of its
# own (tests/conftest.py). `bash tests/run.sh -n 0` runs them one at a time.
workers=(-n 2 --dist loadfile)

echo "== tests on SQLite"
.venv/bin/python -m pytest -q -p no:cacheprovider "${workers[@]}" "$@"

echo "== tests on PostgreSQL"
PG="$(pg_bin)"
tmp="$(mktemp -d)"
port="$(.venv/bin/python -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
as_pg=()
if [ "$(id -u)" = 0 ]; then chown postgres "$tmp"; as_pg=(runuser -u postgres --); fi
redis_port="$(.venv/bin/python -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
redis_pid=""
cleanup() {
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
# The pure rules tests touch no database: they ran above. Of the browser tests (a person at the
# page: the same views, whatever the database), those of two phones at one game run again here,
# where two entries race on PostgreSQL's own write; the rest ran above (CI stays under 20 min).
again=(tests/browser/test_live_browser.py tests/browser/test_double_tap.py)
skip=()
for f in tests/browser/test_*.py; do
  case " ${again[*]} " in *" $f "*) ;; *) skip+=(--ignore="$f") ;; esac
done
TEST_REDIS_URL="redis://127.0.0.1:$redis_port/0" \
TEST_DATABASE_URL="postgresql+psycopg://scorekeeper:scorekeeper@127.0.0.1:$port/scorekeeper" \
  .venv/bin/python -m pytest -q -p no:cacheprovider "${workers[@]}" --ignore=tests/rules "${skip[@]}" "$@"
