#!/usr/bin/env bash
# Runs the whole test suite, doing its own set-up on a fresh Debian machine with Node 20:
# installs nats-server, chromium and bubblewrap (Debian packages) when missing, installs npm dependencies, builds, then runs tap.
# Ends with "tests: N passed, M failed".
set -euo pipefail
cd "$(dirname "$0")/.."

apt_install() {
  if [ "$(id -u)" -eq 0 ]; then SUDO=""; else SUDO="sudo"; fi
  $SUDO apt-get update -qq >/dev/null
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "$@" >/dev/null
}
if ! command -v nats-server >/dev/null 2>&1 && [ ! -x /usr/sbin/nats-server ]; then
  echo "setup: installing Debian package nats-server"
  apt_install nats-server
fi
export PATH="$PATH:/usr/sbin"
# The dashboard's browser tests drive Debian's chromium (playwright-core never downloads a browser).
if ! command -v chromium >/dev/null 2>&1; then
  echo "setup: installing Debian package chromium"
  apt_install --no-install-recommends chromium
fi
# The sandbox isolation tests run coding agents inside Debian's bubblewrap (`sandbox.isolation: bubblewrap`).
if ! command -v bwrap >/dev/null 2>&1; then
  echo "setup: installing Debian package bubblewrap"
  apt_install bubblewrap
fi

if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  # better-sqlite3 compiles itself when its prebuilt binary cannot be downloaded (no route to its host).
  if ! command -v g++ >/dev/null 2>&1 || ! command -v make >/dev/null 2>&1 || ! command -v python3 >/dev/null 2>&1; then
    echo "setup: installing Debian packages g++ make python3 (to build better-sqlite3 if its binary cannot be fetched)"
    apt_install g++ make python3
  fi
  echo "setup: npm ci"
  npm ci --no-audit --no-fund
else
  npm run -s build
fi

echo "check: typescript"
npx tsc -p tsconfig.json --noEmit
npx tsc -p dashboard/tsconfig.json
echo "check: eslint"
npx eslint .
echo "check: unused exports (knip)"
npx knip --include exports,types

# tap builds its plugin set at install; .taprc swaps its TypeScript plugin for tsx and drops unused ones,
# and a rebuild during a run reaches only the next run's test processes, so build it first.
npx tap build >/dev/null

mkdir -p .tap
status=0
# Each test file bundled and run by plain node, TAP nested as tap's runner does (scripts/test-run.mjs).
node scripts/test-run.mjs "$@" | tee .tap/last.tap || status=$?
node scripts/tap-count.mjs < .tap/last.tap || status=1
exit $status
