/**
 * Every route the docs name with its method (`GET /fleet`, `POST|DELETE /mcp/{token}`) is served by a real
 * node, and so is every route of the spec's route tables: each is asked of a `svc serve` child with every
 * optional surface on, and none may answer 404 `no_route` or 405 `method_not_allowed`. What a route then
 * says about the made-up ids it is sent is its own business.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { root } from '../harness/child.js';
import { startNode, TOKEN } from '../harness/serve-node.js';
import { operatorDocs } from './docs.js';

interface Mention {
  readonly method: string;
  readonly path: string;
  readonly where: string;
}

const methods = 'GET|POST|PUT|PATCH|DELETE|WS';
/** Vendor APIs the setup docs quote (the code host's, the trackers'): not this node's routes. */
const vendorPaths = /^\/(api|groups|projects|members|rest|wiki\/rest|ex)\b|\/$/;

function docMentions(): Mention[] {
  const docs = operatorDocs();
  const found: Mention[] = [];
  const named = new RegExp(
    `\\b((?:${methods})(?:\\|(?:${methods}))*)\\s+\`?(/(?:\\{[^}\\s]*\\}|[^\\s\`|,;)])*)`,
    'g',
  );
  for (const doc of docs) {
    readFileSync(join(root, doc), 'utf8')
      .split('\n')
      .forEach((line, i) => {
        for (const m of line.matchAll(named)) {
          const path = m[2]!.replace(/[.:]+$/, '');
          // `/webhooks/…` names a family, not a route.
          if (path.includes('…') || vendorPaths.test(path)) continue;
          for (const method of m[1]!.split('|')) found.push({ method, path, where: `${doc}:${i + 1}` });
        }
      });
  }
  return found;
}

/** The spec's route tables: `| GET | /agents/{id} | ... |`, several paths of one method comma-separated. */
function specMentions(): Mention[] {
  const spec = join(root, '..', 'shared', 'SPEC.md');
  if (!existsSync(spec)) return [];
  const found: Mention[] = [];
  readFileSync(spec, 'utf8')
    .split('\n')
    .forEach((line, i) => {
      const row = new RegExp(`^\\|\\s*(${methods})\\s*\\|([^|]+)\\|`).exec(line);
      if (!row) return;
      for (const path of row[2]!.split(',').map((p) => p.trim()))
        found.push({ method: row[1]!, path, where: `SPEC.md:${i + 1}` });
    });
  return found;
}

/** A concrete request path for a documented one: made-up ids, a kind the route knows, no query. */
function concrete(path: string): string {
  return path
    .replace(/\?.*$/, '')
    .replace(/^\/setup\/integrations\/\{kind\}/, '/setup/integrations/tracker-b')
    .replace(/^\/config\/\{kind\}/, '/config/units')
    .replace(/\{path\.\.\.\}/, 'notes.txt')
    .replace(/\{signal\}/, 'traces')
    .replace(/\{([a-z]+)(?:\|[a-z]+)+\}/g, '$1')
    .replace(/\{[A-Za-z_]+\}/g, 'x1')
    .replace(/\*$/, 'x1');
}

t.test('every route the docs and the spec name with a method is served', async (t) => {
  const mentions = [...docMentions(), ...specMentions()];
  t.ok(mentions.length > 100, `${mentions.length} mentions`);
  const node = await startNode(t, 'tracker: {backend: native}\nknowledge: {backend: native}', 'memory', {
    // The sandbox's telemetry receiver and tool bridge are wired only with their public base URL.
    SVC_SANDBOX_OTEL_RECEIVER_URL: 'http://127.0.0.1:9',
  });
  const asked = new Map<string, string>();
  for (const m of mentions) {
    const key = `${m.method} ${concrete(m.path)}`;
    if (!asked.has(key)) asked.set(key, m.where);
  }
  const unserved: string[] = [];
  for (const [key, where] of asked) {
    const [method, path] = key.split(' ') as [string, string];
    const res = await fetch(`${node.url}${path}`, {
      method: method === 'WS' ? 'GET' : method,
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    const text = await res.text();
    const error = /"error":"([a-z_]+)"/.exec(text)?.[1];
    if (error === 'no_route' || error === 'method_not_allowed') unserved.push(`${key} (${where}): ${error}`);
  }
  t.same(unserved, [], `${asked.size} routes asked, each served`);
});
