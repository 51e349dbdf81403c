/**
 * A run that exits 0 without a result is done with its log's tail as the summary (ops/sandboxes.md, "The
 * coding agent's side"): only the tail is read, however long the log grew — a build that printed more
 * than a string can hold still ends with the last lines it printed, and the node never loads the whole log.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { localBackend, processIsolation } from '../../../actors/index.js';
import type { Observation } from '../../../actors/sandbox/backend.js';
import { until } from '../../harness/until.js';

t.test('exit 0 with a log larger than a string can hold: the summary is still the log’s tail', async (t) => {
  const root = mkdtempSync(join(tmpdir(), 'svc-log-tail-'));
  t.teardown(() => rmSync(root, { recursive: true, force: true }));
  const backend = localBackend({ root, isolation: processIsolation });
  // 600 MB (sparse: no disk written) is past the longest string Node can make (~512 MiB), then the last line.
  const log = '"$SVC_SANDBOX_CONTROL/agent.log"';
  const run = await backend.launch({
    sandbox_id: 'sb-long-log',
    task: 'print a lot',
    settings: {
      setup: [],
      env: {},
      command: `truncate -s 600M ${log}; echo 'é the last line' >> ${log}; exit 0`,
    },
    env: {},
  });
  const end = await until<Observation>(
    () => backend.observe(run),
    (seen) => seen.result !== null || seen.gone !== null,
    { timeoutMs: 20_000, everyMs: 25 },
  );
  t.equal(end.result?.status, 'done');
  t.match(end.result?.summary, /é the last line$/, 'the summary ends with what the agent printed last');
  t.ok((end.result?.summary.length ?? 0) <= 2_000, 'the summary is at most 2,000 characters');
});

t.test('a result or question file past 256 KiB is never read: the run ends by its exit', async (t) => {
  const root = mkdtempSync(join(tmpdir(), 'svc-control-cap-'));
  t.teardown(() => rmSync(root, { recursive: true, force: true }));
  const backend = localBackend({ root, isolation: processIsolation });
  // A well-formed result padded past the cap: read, it would end the run `done` with this summary.
  const run = await backend.launch({
    sandbox_id: 'sb-huge-result',
    task: 'write a huge result',
    settings: {
      setup: [],
      env: {},
      command: [
        `node -e 'const fs=require("fs"),d=process.env.SVC_SANDBOX_CONTROL;`,
        `const pad="x".repeat(300*1024);`,
        `fs.writeFileSync(d+"/question.json",JSON.stringify({question:"padded?",audience:null,pad}));`,
        `fs.writeFileSync(d+"/result.json",JSON.stringify({status:"done",summary:"from the file",total_tokens:0,pad}))'`,
        `; echo 'the log line'; exit 3`,
      ].join(''),
    },
    env: {},
  });
  const end = await until<Observation>(
    () => backend.observe(run),
    (seen) => seen.result !== null || seen.gone !== null,
    { timeoutMs: 20_000, everyMs: 25 },
  );
  t.equal(end.result, null, 'not ended by the file');
  t.equal(end.gone, 'the coding agent exited with code 3', 'but by its exit code');
  t.equal(end.question, null, 'the oversized question is not asked');
});
