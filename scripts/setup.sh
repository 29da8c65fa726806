#!/usr/bin/env bash
# setup.sh — install Greenfinger's JavaScript dependencies and build it. Idempotent: a stamp in
# .greenfinger/ makes a second run instant (it changes with the lockfile, the manifests, the Node version
# and any file under packages/*/src).
#
#   scripts/setup.sh           install + build, with progress
#   scripts/setup.sh --quiet   the same, output in .greenfinger/setup.log (its tail is printed on failure)
#   scripts/setup.sh --check   exit 0 when the stamp is current (nothing to do), 1 otherwise; changes nothing
#   scripts/setup.sh --force   ignore the stamp
#   scripts/setup.sh --pnpm    print the path of the pnpm to use (installing it when missing)
#
# Needs Node >= 20.19 with npm. pnpm 12.4.2 comes from `npm i -g` as root, or into .greenfinger/pnpm otherwise;
# without root nothing is written outside the checkout (pnpm store, caches and npm cache live in .greenfinger/).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
STATE="$ROOT/.greenfinger"
STAMP="$STATE/setup.stamp"
LOG="$STATE/setup.log"
PNPM_VERSION=12.4.2

mode=run quiet=0 force=0
for arg in "$@"; do
  case "$arg" in
    --check) mode=check ;;
    --pnpm) mode=pnpm ;;
    --quiet) quiet=1 ;;
    --force) force=1 ;;
    -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "setup.sh: unknown option $arg (see --help)" >&2; exit 2 ;;
  esac
done

cd "$ROOT"

stamp_key() {
  {
    node --version 2>/dev/null || echo no-node
    echo "pnpm $PNPM_VERSION"
    cat pnpm-lock.yaml package.json pnpm-workspace.yaml tsconfig.base.json 2>/dev/null || true
    cat packages/*/package.json packages/*/tsconfig.json 2>/dev/null || true
  } | sha256sum | cut -d' ' -f1
}

stamp_current() {
  [ -f "$STAMP" ] && [ -d node_modules/.pnpm ] || return 1
  [ "$(cat "$STAMP")" = "$(stamp_key)" ] || return 1
  [ -z "$(find packages/*/src packages/core/native/*.c -newer "$STAMP" -print -quit 2>/dev/null)" ]
}

if [ "$mode" = check ]; then
  stamp_current && exit 0 || exit 1
fi

is_root() { [ "$(id -u)" = 0 ]; }

if ! is_root; then
  # Keep every cache inside the checkout.
  mkdir -p "$STATE"
  export npm_config_cache="$STATE/npm-cache"
  export XDG_CACHE_HOME="$STATE/cache" XDG_DATA_HOME="$STATE/data" XDG_STATE_HOME="$STATE/state"
fi

find_pnpm() {
  local p
  for p in "$(command -v pnpm 2>/dev/null || true)" "$STATE/pnpm/node_modules/.bin/pnpm"; do
    if [ -n "$p" ] && [ -x "$p" ] && [ "$("$p" --version 2>/dev/null || true)" = "$PNPM_VERSION" ]; then
      PNPM=$p
      return 0
    fi
  done
  return 1
}

ensure_pnpm() {
  find_pnpm && return 0
  command -v npm >/dev/null || { echo "setup.sh: npm not found: install Node.js 20 (>= 20.19) with npm" >&2; return 1; }
  if is_root; then
    echo "setup: installing pnpm $PNPM_VERSION globally (npm i -g)" >&2
    npm i -g --no-audit --no-fund "pnpm@$PNPM_VERSION" >&2
  else
    echo "setup: installing pnpm $PNPM_VERSION into $STATE/pnpm" >&2
    mkdir -p "$STATE/pnpm"
    npm i --prefix "$STATE/pnpm" --no-save --no-audit --no-fund --no-package-lock "pnpm@$PNPM_VERSION" >&2
  fi
  find_pnpm || { echo "setup.sh: pnpm $PNPM_VERSION not usable after installing it" >&2; return 1; }
}

if [ "$mode" = pnpm ]; then
  ensure_pnpm
  echo "$PNPM"
  exit 0
fi

main() {
  local t0=$SECONDS
  local node_ok
  node_ok=$(node -e 'const [a,b]=process.versions.node.split(".").map(Number); console.log(a>20||(a===20&&b>=19)?1:0)' 2>/dev/null || echo 0)
  if [ "$node_ok" != 1 ]; then
    echo "setup.sh: Node.js >= 20.19 is required (found $(node --version 2>/dev/null || echo none))" >&2
    return 1
  fi
  if [ "$force" = 0 ] && stamp_current; then
    echo "setup: up to date"
    return 0
  fi
  ensure_pnpm
  echo "setup: pnpm $PNPM_VERSION at $PNPM"

  local install=(install --config.confirmModulesPurge=false)
  if [ -f pnpm-lock.yaml ]; then install+=(--frozen-lockfile); else install+=(--no-frozen-lockfile); fi
  if ! is_root; then install+=(--store-dir "$STATE/pnpm-store"); fi
  echo "setup: pnpm ${install[*]}"
  npm_config_nodedir=/usr ONNXRUNTIME_NODE_INSTALL=skip PRISMA_SCHEMA_ENGINE_BINARY=/bin/false "$PNPM" "${install[@]}"
  echo "setup: installed in $((SECONDS - t0)) s; building"
  "$PNPM" run build
  mkdir -p "$STATE"
  stamp_key >"$STAMP"
  echo "setup: done in $((SECONDS - t0)) s"
}

mkdir -p "$STATE"
exec 9>"$STATE/setup.lock"
if command -v flock >/dev/null; then
  flock -w 900 9 || { echo "setup.sh: another setup has held $STATE/setup.lock for 15 minutes" >&2; exit 1; }
fi

if [ "$quiet" = 1 ]; then
  # In the background so that errexit still applies inside main (it does not in an `if` condition).
  main >"$LOG" 2>&1 &
  if ! wait $!; then
    echo "setup.sh failed; the end of $LOG:" >&2
    tail -n 40 "$LOG" >&2
    exit 1
  fi
else
  main
fi
