#!/usr/bin/env bash
# A longer fuzz run than the suite's (test/http/fuzz*.e2e.test.ts): FUZZ_RUNS cases (default 20000) against a
# `svc serve` child each (unconfigured; configured with both native backends; its WebSocket stream; its operator MCP endpoint; every webhook receiver with signed generated payloads; company documents applied by a node; turns answered by a generated model; dashboard addresses in Chromium); FUZZ_SEED replays a failing seed. Build first (npm run build).
set -euo pipefail
cd "$(dirname "$0")/.."
FUZZ_RUNS="${FUZZ_RUNS:-20000}" npx tap --timeout=3600 --reporter=terse test/http/fuzz.e2e.test.ts test/http/fuzz.configured.e2e.test.ts test/http/fuzz.frames.e2e.test.ts test/http/fuzz.mcp.e2e.test.ts test/http/webhooks/fuzz.signed.e2e.test.ts test/http/fuzz.apply.e2e.test.ts test/scripts/fuzz.turns.e2e.test.ts test/dashboard/fuzz.routes.e2e.test.ts
