/**
 * Records the streams of a realistic run as a fixture (ARCHITECTURE.md "Recorded streams"). Run by hand,
 * after `npm run build` (it starts the built `svc serve`):
 *
 *     npx tsx scripts/record-streams.ts [name]     # writes test/fixtures/streams/<name>/ (default: today)
 *
 * A `svc serve` child on the memory engine, over a temp store, with the fake model and signed deliveries
 * of the test fixtures: a company activated and edited (a revert too), a secret set, a native work item
 * and page,
 * signed webhooks from code host A (accepted, duplicate, refused), agent turns against the fake model
 * (a tool call and an `ask_human`), a pause and a resume, a schedule firing. Then the node stops, and every stream's records
 * (KV buckets included: they are streams) are written to `<STREAM>.jsonl` with `streams.json`, and what
 * today's code rebuilds from them to `expected.json` (test/projections/recorded-streams.int.test.ts checks
 * it). An existing directory is never overwritten: a recording, once landed, is kept as it is.
 *
 * Every credential in it is a fake made for this run. Documents and secrets are stored sealed under a
 * throwaway key of 32 bytes of 0x01, written beside the records (`keyring.json`) so a replay opens them.
 * Outside the build (nothing in scripts/svc.ts reaches it): it drives the test harness.
 */
import Database from 'better-sqlite3';
import { createHmac } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Test } from 'tap';
import { startLlmServer } from '../test/fixtures/llm/llm-server.js';
import type { Step } from '../test/fixtures/llm/script.js';
import {
  loadRecording,
  rebuild,
  recordedLine,
  recordingsRoot,
  type RecordedKeyring,
  type RecordedStreams,
} from '../test/fixtures/streams/recorded.js';
import { bootNode, type BootedNode, type StoreDir } from '../test/harness/serve-store.js';
import { keyringYaml, material } from '../test/http/fixtures/secrets-node.js';

const WEBHOOK_SECRET = 'fake-codehost-a-secret-for-recording';
const usage = { prompt_tokens: 40, completion_tokens: 12 };
const verdict = (notes: string): Step => ({
  kind: 'text',
  text: JSON.stringify({ verdict: 'done', notes }),
  usage,
});

/** The fake model's answers: turn one looks a colleague up and asks a human; the next two just answer. */
const script: Step[] = [
  {
    kind: 'text',
    text: JSON.stringify({
      decision: 'plan',
      steps: ['look Hu up', 'ask Hu'],
      success_criteria: ['asked'],
      tools: ['org_lookup', 'ask_human'],
    }),
    usage,
  },
  { kind: 'tool_calls', calls: [{ id: 'c1', name: 'org_lookup', arguments: { query: 'Hu' } }], usage },
  {
    kind: 'tool_calls',
    calls: [
      {
        id: 'c2',
        name: 'ask_human',
        arguments: { to: 'hu', question: 'Which branch do we release from?', urgency: 'normal' },
      },
    ],
    usage,
  },
  { kind: 'text', text: 'Asked Hu which branch we release from.', usage },
  verdict('asked'),
  {
    kind: 'text',
    text: JSON.stringify({ decision: 'plan', steps: ['reply'], success_criteria: ['replied'], tools: [] }),
    usage,
  },
  { kind: 'text', text: 'The fix is tracked; nothing else to do.', usage },
  verdict('replied'),
  {
    kind: 'text',
    text: JSON.stringify({ decision: 'plan', steps: ['check'], success_criteria: ['checked'], tools: [] }),
    usage,
  },
  { kind: 'text', text: 'The release branch is green.', usage },
  verdict('checked'),
];

interface Cleanup {
  readonly t: Test;
  run(): Promise<void>;
}

/** The harness takes a tap test for its teardowns; a script keeps them itself. */
function teardowns(): Cleanup {
  const fns: Array<() => unknown> = [];
  const t = { teardown: (fn: () => unknown) => void fns.push(fn) } as unknown as Test;
  return {
    t,
    async run() {
      for (const fn of fns.reverse()) await fn();
    },
  };
}

async function ok(res: Promise<Response>, status: number, what: string): Promise<Record<string, unknown>> {
  const answer = await res;
  const text = await answer.text();
  if (answer.status !== status) throw new Error(`${what}: ${answer.status} ${text}`);
  return text === '' ? {} : (JSON.parse(text) as Record<string, unknown>);
}

function delivery(node: BootedNode, id: string, body: string, signature?: string): Promise<Response> {
  const signed = `sha256=${createHmac('sha256', WEBHOOK_SECRET).update(body).digest('hex')}`;
  return node.call('POST', '/webhooks/codehost-a', {
    auth: null,
    body,
    headers: {
      'content-type': 'application/json',
      'x-codehost-a-event': 'issues',
      'x-codehost-a-delivery': id,
      'x-codehost-a-signature-256': signature ?? signed,
    },
  });
}

const assigned = (n: number, title: string) =>
  JSON.stringify({
    action: 'assigned',
    sender: { login: 'someone' },
    issue: { number: n, title, assignees: [{ login: 'ada' }] },
  });

/** A JSON POST to the node. */
function postJson(node: BootedNode, path: string, body: unknown): Promise<Response> {
  return node.call('POST', path, {
    body: JSON.stringify(body),
    headers: { 'content-type': 'application/json' },
  });
}

async function until(what: string, check: () => Promise<boolean>, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function scenario(node: BootedNode, llmUrl: string): Promise<void> {
  const company = (
    timezone: string,
    extraRoles: Array<Record<string, unknown>>,
    ada: Record<string, unknown> = { name: 'Ada' },
  ) => ({
    name: 'Acme',
    timezone,
    providers: {
      llm: { local: { type: 'openai-compatible', model: 'local-1', base_url: llmUrl } },
      llm_order: ['local'],
    },
    integrations: { codehost_a: { webhook_secret: WEBHOOK_SECRET } },
    units: [
      {
        name: 'Engineering',
        type: 'team',
        integrations: { work: { project: 'ENG' }, wiki: { space: 'ENG' } },
        roles: [ada, { name: 'Hu', kind: 'human', contact: { operator_id: 'ops' } }, ...extraRoles],
      },
    ],
  });
  const put = (doc: unknown, summary: string) =>
    ok(
      node.call('PUT', '/config', {
        body: JSON.stringify(doc),
        headers: { 'content-type': 'application/json', 'x-summary': summary },
      }),
      201,
      summary,
    );
  await put(company('UTC', []), 'first company');
  const second = await put(company('UTC', [{ name: 'Cy' }]), 'Cy joins');
  await put(company('Europe/Paris', [{ name: 'Cy' }]), 'move to Paris time');
  await ok(
    node.call('POST', `/config/revisions/${String(second['revision_id'])}/revert`, {
      headers: { 'x-summary': 'back to UTC' },
    }),
    201,
    'revert',
  );
  await node.run.waitForLog((l) => l.msg === 'config applied');

  await ok(
    node.call('PUT', '/secrets/FAKE_TRACKER_TOKEN', { body: 'fake-token-not-a-credential' }),
    200,
    'secret',
  );
  await until('the ENG project', async () => {
    const res = await node.call('GET', '/work/projects');
    const body = (await res.json()) as { projects?: unknown[] };
    return (body.projects?.length ?? 0) > 0;
  });
  await ok(
    postJson(node, '/work', { project: 'ENG', title: 'Write the release notes', op_id: 'op-1' }),
    201,
    'work item',
  );

  await ok(
    postJson(node, '/pages', { container: 'ENG', title: 'Release process', body: 'Cut from main.' }),
    201,
    'page',
  );
  await ok(
    postJson(node, '/pages/ENG/Release%20process/comments', { body: 'Tag after the notes are written.' }),
    201,
    'page comment',
  );

  // Webhooks: accepted, refused (bad signature), duplicate; the accepted one wakes Ada.
  await ok(delivery(node, 'd-1', assigned(7, 'Release branch')), 200, 'delivery');
  await ok(delivery(node, 'd-2', assigned(8, 'Forged'), `sha256=${'0'.repeat(64)}`), 401, 'forged');
  await ok(delivery(node, 'd-1', assigned(7, 'Release branch')), 200, 'duplicate');
  const turns = () => node.run.lines.filter((l) => l.msg === 'turn completed').length;
  await until('the first turn', () => Promise.resolve(turns() >= 1));

  await ok(postJson(node, '/agents/ada/pause', { reason: 'release freeze' }), 200, 'pause');
  await ok(node.call('POST', '/agents/ada/resume'), 200, 'resume');

  await ok(delivery(node, 'd-3', assigned(9, 'Crash on start')), 200, 'second delivery');
  await until('the second turn', () => Promise.resolve(turns() >= 2));

  // A schedule every minute: its first firing wakes Ada for a third turn (within a minute).
  const schedules = [{ name: 'branch-check', cron: '* * * * *', task: 'Check the release branch' }];
  await put(company('UTC', [{ name: 'Cy' }], { name: 'Ada', schedules }), 'a minutely check');
  await until('the scheduled turn', () => Promise.resolve(turns() >= 3), 150_000);
}

interface Row {
  seq: number;
  subject: string;
  time_ms: number;
  headers: string | null;
  data: Buffer;
}

/** Every stream of the stopped node's store: its spec and records, written as the fixture's files. */
function dump(storeDir: string, out: string): void {
  const db = new Database(join(storeDir, 'bus.sqlite'));
  try {
    const streams = db.prepare('SELECT name, spec FROM streams ORDER BY name').all() as Array<{
      name: string;
      spec: string;
    }>;
    const specs: RecordedStreams['streams'] = [];
    let ended = 0;
    for (const { name, spec } of streams) {
      const s = JSON.parse(spec) as RecordedStreams['streams'][number];
      specs.push({
        name,
        subjects: s.subjects,
        ...(s.retention ? { retention: s.retention } : {}),
        ...(s.maxAgeMs ? { maxAgeMs: s.maxAgeMs } : {}),
        ...(s.maxMsgs ? { maxMsgs: s.maxMsgs } : {}),
        ...(s.maxMsgsPerSubject ? { maxMsgsPerSubject: s.maxMsgsPerSubject } : {}),
      });
      const rows = db
        .prepare('SELECT seq, subject, time_ms, headers, data FROM messages WHERE stream = ? ORDER BY seq')
        .all(name) as Row[];
      const lines = rows.map((row) => {
        ended = Math.max(ended, row.time_ms);
        return JSON.stringify(
          recordedLine({
            stream: name,
            seq: row.seq,
            subject: row.subject,
            time: new Date(row.time_ms),
            headers: row.headers ? (JSON.parse(row.headers) as Record<string, string>) : {},
            data: new Uint8Array(row.data),
          }),
        );
      });
      writeFileSync(join(out, `${name}.jsonl`), lines.map((l) => `${l}\n`).join(''));
    }
    const meta: RecordedStreams = { ended_at: new Date(ended).toISOString(), streams: specs };
    writeFileSync(join(out, 'streams.json'), `${JSON.stringify(meta, null, 2)}\n`);
  } finally {
    db.close();
  }
}

/** Writes `expected.json`: what today's code rebuilds from the directory's streams. */
export async function writeExpected(dir: string): Promise<void> {
  const loaded = await loadRecording(dir);
  try {
    writeFileSync(join(dir, 'expected.json'), `${JSON.stringify(await rebuild(loaded), null, 2)}\n`);
  } finally {
    await loaded.bus.close();
  }
}

async function main(): Promise<void> {
  const name = process.argv[2] ?? new Date().toISOString().slice(0, 10);
  const out = join(recordingsRoot, name);
  if (existsSync(out)) throw new Error(`${out} exists: a recording is never rewritten; pick a new name`);
  const cleanup = teardowns();
  const dir = mkdtempSync(join(tmpdir(), 'svc-record-'));
  const store: StoreDir = {
    dir,
    storeDir: join(dir, 'data'),
    configFile: join(dir, 'config.yaml'),
    queue: 'memory',
  };
  try {
    const llm = await startLlmServer({ wire: 'openai', script: (_req, n) => script[n] ?? verdict('extra') });
    cleanup.t.teardown(() => llm.close());
    const node = await bootNode(
      cleanup.t,
      store,
      [keyringYaml('k1', ['k1', 1]), 'tracker: {backend: native}', 'knowledge: {backend: native}'].join('\n'),
    );
    await scenario(node, llm.baseUrl);
    const code = await node.stop();
    if (code !== 0) throw new Error(`svc serve exited ${code}\n${node.run.stderr()}`);
    mkdirSync(out, { recursive: true });
    dump(store.storeDir, out);
    const keyring: RecordedKeyring = { active_key_id: 'k1', keys: [{ id: 'k1', material: material(1) }] };
    writeFileSync(join(out, 'keyring.json'), `${JSON.stringify(keyring, null, 2)}\n`);
    await writeExpected(out);
    process.stdout.write(`recorded ${out}\n`);
  } finally {
    await cleanup.run();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1]?.endsWith('record-streams.ts')) {
  main().catch((error: unknown) => {
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exitCode = 1;
  });
}
