/**
 * The node's Tier A file (its own start file, `svc serve --config FILE`) sent as the company document is
 * refused with its unknown fields and one hint that says what the file is and what the company document
 * holds instead; a company document with a mistyped key is refused without it.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { root } from '../harness/child.js';
import { startNode, TOKEN } from '../harness/serve-node.js';

const example = readFileSync(join(root, 'ops', 'company.example.yaml'), 'utf8');
const tierAHint = /Tier A file.*`svc serve --config FILE`.*company document holds `name`, `roles`, `units`/s;

t.test(
  'a Tier A file sent as the company document is answered with a hint naming the company document',
  async (t) => {
    const node = await startNode(t);
    const put = async (body: string, type: string) => {
      const res = await fetch(`${node.url}/config?dry_run=true`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${TOKEN}`, 'content-type': type },
        body,
      });
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    };
    const tierA = readFileSync(node.configFile, 'utf8');
    const asYaml = await put(tierA, 'application/yaml');
    t.equal(asYaml.status, 400);
    t.equal(asYaml.body['error'], 'validation_error');
    const problems = asYaml.body['problems'] as Array<{ kind: string; path: string }>;
    t.ok(
      problems.some((p) => p.kind === 'unknown_field' && p.path === 'api'),
      'its keys are unknown fields still',
    );
    t.match(asYaml.body['hint'], tierAHint, 'the Tier A file named, and what the document holds');
    t.notMatch(JSON.stringify(asYaml.body), new RegExp(TOKEN), 'nothing of the file quoted');

    const asJson = await put(
      JSON.stringify({
        api: { port: 8080 },
        node: { id: 'n1' },
        providers: { queue: { type: 'memory' } },
        stram: {},
      }),
      'application/json',
    );
    t.match(asJson.body['hint'], tierAHint, 'in JSON, with a mistyped Tier A key beside them');

    // A company document with a mistyped key, or with a Tier A key in it, is a company document.
    for (const body of [
      example.replace(/^name:/m, 'nmae:'),
      `${example}\nstream: {store_dir: /tmp/x}\n`,
      `${example}\nrols: []\n`,
      'providers: {llm: {}, queue: {type: memory}}\n',
    ]) {
      const answer = await put(body, 'application/yaml');
      t.equal(answer.status, 400);
      t.notMatch(answer.body['hint'], /Tier A/, 'no Tier A hint on a company document');
    }
  },
);

t.test(
  'a PATCH of Tier A keys (restart-only, in the start file) is answered with the same hint as a PUT',
  async (t) => {
    const node = await startNode(t);
    const send = async (method: string, body: unknown) => {
      const res = await fetch(`${node.url}/config${method === 'PATCH' ? '?dry_run=true' : ''}`, {
        method,
        headers: {
          authorization: `Bearer ${TOKEN}`,
          'content-type': method === 'PATCH' ? 'application/merge-patch+json' : 'application/json',
          'x-summary': 'tier a',
        },
        body: JSON.stringify(body),
      });
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    };
    t.equal((await send('PUT', { name: 'Acme' })).status, 201);
    for (const patch of [
      { api: { port: 9090 } },
      { node: { roles: ['ingress'] }, providers: { queue: { type: 'jetstream' } } },
    ]) {
      const answer = await send('PATCH', patch);
      const label = JSON.stringify(patch);
      t.equal(answer.status, 400, label);
      t.equal(answer.body['error'], 'invalid_patch', label);
      const problems = answer.body['problems'] as Array<{ kind: string }>;
      t.ok(problems.length > 0 && problems.every((p) => p.kind === 'unknown_field'), label);
      t.match(answer.body['hint'], tierAHint, label);
    }
    // A patch of the company document with a mistyped key is a company patch.
    const typo = await send('PATCH', { nmae: 'Acme Two' });
    t.equal(typo.status, 400);
    t.notMatch(typo.body['hint'], /Tier A/, 'no Tier A hint on a company patch');
  },
);
