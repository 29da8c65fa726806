#!/usr/bin/env bash
# test.sh — what `npm test` runs (and CI, through .ci/run): everything from a fresh Debian machine with Node 20.
#
#   1. system packages: as root, apt-get installs what is missing (nginx curl chromium tini postgresql redis-server
#      python3-scrapy, and the two corpora through shared/tools/serve-corpus.sh); without root, prints what is
#      missing and how to install it, and stops
#   2. services: PostgreSQL (GF_TEST_PG_URL) and Redis (REDIS_URL): uses the ones given or listening on the default
#      ports, else starts private ones in a temp dir on other ports and stops them on exit
#   3. scripts/setup.sh (pnpm install + build)
#   4. biome check (lint + format), 5. tsc -b (typecheck), 6. vitest run, with v8 coverage on a whole run: the
#      table per package printed at the end (scripts/coverage-table.mjs), each package gated at its line coverage
#      (coverage.thresholds in vitest.config.ts)
# The exit code is vitest's; when vitest passes but lint or typecheck failed, it is 1.
#
# Env: GF_SHARED_DIR (default: <checkout>/../shared), GF_TEST_PG_URL, REDIS_URL,
#      GF_TEST_PRIVATE_SERVICES=1 (always start private PostgreSQL and Redis, ignoring the default ports),
#      GF_TEST_TIMEOUT (seconds for vitest, default 3600), GF_TEST_WORKERS (test files at once outside the "alone"
#      project, default 2; vitest.config.ts), GF_TEST_COVERAGE=0 (no coverage). Extra arguments go to `vitest run`
#      and turn coverage off (the gates are for the whole suite).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
START=$SECONDS
phase() { printf '\n==> [%4d s] %s\n' "$((SECONDS - START))" "$*"; }
die() { echo "test.sh: $*" >&2; exit 1; }
is_root() { [ "$(id -u)" = 0 ]; }

# --- shared/ (serve-corpus.sh) -------------------------------------------------------------------------
if [ -z "${GF_SHARED_DIR:-}" ]; then
  for d in "$ROOT/../shared" /work/shared; do
    if [ -x "$d/tools/serve-corpus.sh" ] || [ -f "$d/tools/serve-corpus.sh" ]; then GF_SHARED_DIR="$(cd "$d" && pwd)"; break; fi
  done
fi
[ -n "${GF_SHARED_DIR:-}" ] && [ -f "$GF_SHARED_DIR/tools/serve-corpus.sh" ] ||
  die "shared/tools/serve-corpus.sh not found beside the checkout ($ROOT/../shared): set GF_SHARED_DIR"
export GF_SHARED_DIR
SERVE_CORPUS="$GF_SHARED_DIR/tools/serve-corpus.sh"

# --- a checkout nobody may traverse (a fresh clone in a mktemp -d folder is 700): one test reads files as nobody
# (file-extractor.test.ts) through the checkout's own sources, so as root give others the right to pass through it
if is_root && [ "$(( 0$(stat -c %a "$ROOT") & 1 ))" = 0 ]; then chmod o+x "$ROOT"; fi

# --- run dir and cleanup --------------------------------------------------------------------------------
RUN_DIR="$(mktemp -d "${TMPDIR:-/tmp}/gf-test.XXXXXX")"
chmod 711 "$RUN_DIR"
mkdir -p "$RUN_DIR/tmp"
PG_DATA="" PG_USER="" REDIS_PIDFILE=""

as_pg_user() { # run a command as the PostgreSQL server user (postgres when root, else ourselves)
  if [ -z "$PG_USER" ]; then "$@"
  elif command -v runuser >/dev/null; then runuser -u "$PG_USER" -- "$@"
  else su -s /bin/sh "$PG_USER" -c "$(printf '%q ' "$@")"; fi
}

cleanup() {
  local rc=$?
  set +e
  # corpus servers a killed test run may have left behind (their run dirs live under our TMPDIR)
  for d in "$RUN_DIR"/tmp/gf-corpus-*/; do
    [ -d "$d" ] && SERVE_CORPUS_RUNDIR="${d%/}" bash "$SERVE_CORPUS" stop-all >/dev/null 2>&1
  done
  if [ -n "$REDIS_PIDFILE" ] && [ -f "$REDIS_PIDFILE" ]; then
    local pid i
    pid=$(cat "$REDIS_PIDFILE")
    kill "$pid" 2>/dev/null
    for i in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$pid" 2>/dev/null
  fi
  if [ -n "$PG_DATA" ] && [ -f "$PG_DATA/postmaster.pid" ]; then
    as_pg_user "$PG_BIN/pg_ctl" -D "$PG_DATA" -m fast -t 30 -w stop >/dev/null 2>&1
  fi
  rm -rf "$RUN_DIR"
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
free_port() { # first closed port from $1 upwards
  local p=$1
  while port_open "$p"; do p=$((p + 1)); [ "$p" -lt "$(($1 + 100))" ] || die "no free port near $1"; done
  echo "$p"
}

# --- 1. system packages ---------------------------------------------------------------------------------
phase "system packages"
SYSTEM_PKGS=(nginx curl chromium tini postgresql redis-server python3-scrapy gimp-help-en)
CORPUS_PKGS=(python3.11-doc debian-handbook)
installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'; }
missing_sys=() missing_corpus=()
command -v dpkg-query >/dev/null || die "dpkg-query not found: this script expects Debian 12 (bookworm)"
for p in "${SYSTEM_PKGS[@]}"; do installed "$p" || missing_sys+=("$p"); done
for p in "${CORPUS_PKGS[@]}"; do installed "$p" || missing_corpus+=("$p"); done
if [ $((${#missing_sys[@]} + ${#missing_corpus[@]})) -gt 0 ]; then
  if is_root; then
    echo "installing: ${missing_sys[*]} ${missing_corpus[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get -o DPkg::Lock::Timeout=600 update
    if [ ${#missing_sys[@]} -gt 0 ]; then
      apt-get -o DPkg::Lock::Timeout=600 install -y --no-install-recommends "${missing_sys[@]}"
    fi
    if [ ${#missing_corpus[@]} -gt 0 ]; then bash "$SERVE_CORPUS" install all; fi
  else
    {
      echo "test.sh: missing Debian packages: ${missing_sys[*]} ${missing_corpus[*]}"
      echo "Install them as root, then run npm test again:"
      echo "  sudo apt-get update"
      [ ${#missing_sys[@]} -gt 0 ] && echo "  sudo apt-get install -y --no-install-recommends ${missing_sys[*]}"
      [ ${#missing_corpus[@]} -gt 0 ] && echo "  sudo $SERVE_CORPUS install all"
      echo "(or run npm test as root, which installs them)"
    } >&2
    exit 1
  fi
else
  echo "all present: ${SYSTEM_PKGS[*]} ${CORPUS_PKGS[*]}"
fi

# --- 2. services ----------------------------------------------------------------------------------------
phase "PostgreSQL"
PG_BIN="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)"
pg_works() { PGCONNECT_TIMEOUT=5 psql "$1" -Atqc 'select 1' >/dev/null 2>&1; }
if [ -n "${GF_TEST_PG_URL:-}" ]; then
  pg_works "$GF_TEST_PG_URL" || die "GF_TEST_PG_URL is set but PostgreSQL does not answer there"
  echo "using GF_TEST_PG_URL"
elif [ "${GF_TEST_PRIVATE_SERVICES:-0}" != 1 ] && port_open 5432 && pg_works postgres://postgres@127.0.0.1:5432/postgres; then
  export GF_TEST_PG_URL=postgres://postgres@127.0.0.1:5432/postgres
  echo "using the server on 127.0.0.1:5432"
else
  [ -n "$PG_BIN" ] || die "PostgreSQL binaries not found under /usr/lib/postgresql"
  PG_PORT=$(free_port 54329)
  PG_DIR="$RUN_DIR/pg"
  mkdir -p "$PG_DIR"
  if is_root; then PG_USER=postgres; chown postgres:postgres "$PG_DIR"; fi
  as_pg_user "$PG_BIN/initdb" -D "$PG_DIR/data" -U postgres --auth=trust -E UTF8 --locale=C -N >"$RUN_DIR/pg-initdb.log" 2>&1 ||
    { cat "$RUN_DIR/pg-initdb.log" >&2; die "initdb failed"; }
  PG_DATA="$PG_DIR/data"
  as_pg_user "$PG_BIN/pg_ctl" -D "$PG_DATA" -l "$PG_DIR/server.log" -w -t 60 start \
    -o "-p $PG_PORT -k $PG_DIR -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off" >/dev/null ||
    { cat "$PG_DIR/server.log" >&2; die "PostgreSQL did not start"; }
  export GF_TEST_PG_URL="postgres://postgres@127.0.0.1:$PG_PORT/postgres"
  pg_works "$GF_TEST_PG_URL" || die "PostgreSQL started on $PG_PORT but does not answer"
  echo "started a private PostgreSQL on 127.0.0.1:$PG_PORT ($("$PG_BIN/postgres" --version))"
fi

phase "Redis"
redis_works() { # redis_works HOST PORT
  local out
  out=$(timeout 5 redis-cli -h "$1" -p "$2" ping 2>/dev/null || true)
  [ "$out" = PONG ]
}
if [ -n "${REDIS_URL:-}" ]; then
  echo "using REDIS_URL"
elif [ "${GF_TEST_PRIVATE_SERVICES:-0}" != 1 ] && port_open 6379 && redis_works 127.0.0.1 6379; then
  export REDIS_URL=redis://127.0.0.1:6379
  echo "using the server on 127.0.0.1:6379"
else
  command -v redis-server >/dev/null || die "redis-server not found"
  REDIS_PORT=$(free_port 56379)
  REDIS_PIDFILE="$RUN_DIR/redis.pid"
  redis-server --bind 127.0.0.1 --port "$REDIS_PORT" --daemonize yes --pidfile "$REDIS_PIDFILE" \
    --dir "$RUN_DIR" --logfile "$RUN_DIR/redis.log" --save '' --appendonly no >/dev/null
  for _ in $(seq 100); do redis_works 127.0.0.1 "$REDIS_PORT" && break; sleep 0.1; done
  redis_works 127.0.0.1 "$REDIS_PORT" || { cat "$RUN_DIR/redis.log" >&2; die "redis-server did not answer on $REDIS_PORT"; }
  export REDIS_URL="redis://127.0.0.1:$REDIS_PORT"
  echo "started a private redis-server on 127.0.0.1:$REDIS_PORT"
fi

# --- 3. install + build ---------------------------------------------------------------------------------
phase "setup (pnpm install + build)"
bash scripts/setup.sh
PNPM="$(bash scripts/setup.sh --pnpm)"

# --- 4-6. lint, typecheck, tests ------------------------------------------------------------------------
phase "lint + format (biome check .)"
lint_rc=0
"$PNPM" exec biome check . || lint_rc=$?

phase "typecheck (tsc -b packages/shell packages/api packages/cluster packages/web)"
tsc_rc=0
"$PNPM" exec tsc -b packages/shell packages/api packages/cluster packages/web || tsc_rc=$?

phase "tests (vitest run)"
test_rc=0
coverage=()
if [ $# = 0 ] && [ "${GF_TEST_COVERAGE:-1}" != 0 ]; then
  export GF_COVERAGE_DIR="$RUN_DIR/coverage"
  coverage=(--coverage.enabled)
fi
TMPDIR="$RUN_DIR/tmp" timeout --kill-after=30 "${GF_TEST_TIMEOUT:-3600}" "$PNPM" exec vitest run "${coverage[@]}" "$@" || test_rc=$?
[ "$test_rc" = 124 ] && echo "test.sh: vitest did not finish within ${GF_TEST_TIMEOUT:-3600} s" >&2
if [ ${#coverage[@]} -gt 0 ] && [ -f "$GF_COVERAGE_DIR/coverage-summary.json" ]; then
  node scripts/coverage-table.mjs "$GF_COVERAGE_DIR" || true
fi

phase "done: lint $([ $lint_rc = 0 ] && echo ok || echo FAILED), typecheck $([ $tsc_rc = 0 ] && echo ok || echo FAILED), tests $([ $test_rc = 0 ] && echo ok || echo "FAILED ($test_rc)")"
if [ "$test_rc" != 0 ]; then exit "$test_rc"; fi
if [ "$lint_rc" != 0 ] || [ "$tsc_rc" != 0 ]; then exit 1; fi
exit 0
