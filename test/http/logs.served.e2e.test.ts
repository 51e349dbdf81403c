/**
 * The log rules read from outside a served node: every line is one JSON object; every line about a request
 * (a request line, a guard line, a refusal, a webhook line, a socket's line) names its route pattern and its
 * operator (null when none); no line holds a token, a canary secret or a signature, across the route families.
 */
import t from 'tap';
import { canary, exercise, startAuditNode } from './fixtures/log-audit-node.js';

/** Lines of the gateway about itself, not about a request. */
const lifecycle = new Set([
  'gateway_listening',
  'gateway_routes',
  'gateway_draining',
  'listener_closing',
  'listener_closed',
]);

t.test(
  'every request line of a served node names its route and operator and no credential, across route families',
  async (t) => {
    const node = await startAuditNode(t);
    const seen = await exercise(node);
    t.ok(seen.length > 80, `${seen.length} requests`);
    t.ok(
      seen.some((s) => s.startsWith('POST /webhooks/tracker-a ') && s.endsWith(' 200')),
      'a well-signed delivery was accepted (the canary secrets were in force)',
    );
    t.ok(seen.includes('POST /webhooks/monitor (huge) 413'), seen.filter((s) => s.includes('huge')).join());
    node.run.kill('SIGTERM');
    t.equal(await node.run.exited, 0);

    const text = node.run.stdout().trim().split('\n');
    const notJson = text.filter((line) => {
      try {
        const parsed: unknown = JSON.parse(line);
        return typeof parsed !== 'object' || parsed === null || Array.isArray(parsed);
      } catch {
        return true;
      }
    });
    t.same(notJson, [], 'one JSON object per line');

    const lines = node.run.lines;
    const aboutRequest = lines.filter(
      (l) =>
        'method' in l || 'path' in l || (l['component'] === 'http' && !lifecycle.has(String(l['event']))),
    );
    t.ok(aboutRequest.length > 100, `${aboutRequest.length} lines about requests`);
    const unnamed = aboutRequest.filter((l) => !('route' in l) || !('operator' in l));
    t.same(unnamed, [], 'each names route and operator');
    const tokenRoute = aboutRequest.filter(
      (l) => typeof l['route'] === 'string' && /\/(mcp|otlp)\/+[^/{:[]/.test(l['route']),
    );
    t.same(tokenRoute, [], 'a per-run token path is logged by its pattern');
    t.ok(
      lines.some((l) => l['operator'] === 'alice' && l['route'] === '/config' && l['msg'] === 'request'),
      "the second operator's requests name them",
    );
    t.ok(lines.some((l) => l['operator'] === null && l['route'] === '/webhooks/monitor'));
    for (const event of ['auth_refused', 'webhook_refused', 'webhook_accepted', 'secret_revealed'])
      t.ok(
        aboutRequest.some((l) => l['event'] === event),
        `${event} was among the lines checked`,
      );
    t.ok(
      aboutRequest.some((l) => l['event'] === 'stream_client_open'),
      "a socket's lines were among them",
    );

    // A host's record of a command served for a request names who asked, as the request line does.
    for (const event of ['config_write', 'secret_put', 'setup_pass', 'backup_refused', 'work_written']) {
      const written = lines.filter((l) => (l['event'] ?? String(l['msg']).replace(' ', '_')) === event);
      t.ok(written.length > 0, `${event} lines written`);
      // The tracker records the person an operator token is bound to (ops is Ada) as the item's actor.
      const named = event === 'work_written' ? ['ada', 'alice'] : ['ops', 'alice'];
      t.ok(
        written.every((l) => named.includes(String(l['actor']))),
        `${event} names who asked as actor`,
      );
    }

    const all = node.run.stdout();
    const leaks = [...Object.entries(canary), ...node.signatures.map((s, i) => [`signature ${i}`, s])]
      .flatMap(([label, value]) => [value!, encodeURIComponent(value!)].map((v) => [label, v] as const))
      .filter(([, value]) => all.includes(value))
      .map(([label]) => label);
    // both forms of a value may leak: each label once
    t.same([...new Set(leaks)], [], 'no token, canary or signature in any line');
    t.notMatch(all, /Bearer [^"\s]/i, 'no Authorization value');
  },
);
