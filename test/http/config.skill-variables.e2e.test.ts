/**
 * `skill_variables` fill a skill's `{{name}}` placeholders (ops/skills.md "Variables"), and a placeholder's
 * name is letters, digits and `_`, not starting with a digit. A variable named otherwise could never be filled,
 * so a config write refuses it at `skill_variables` rather than keep it in silence (admission rule A15; its
 * ratcheting is test/schema/key-admission.unit.test.ts's). Against a built `svc serve`.
 */
import t from 'tap';
import { startNode, TOKEN } from '../harness/serve-node.js';

type Json = Record<string, unknown>;

t.test(
  'a skill variable no {{name}} placeholder can name is refused at skill_variables; placeholder names are accepted',
  async (t) => {
    const node = await startNode(t);
    const send = async (
      method: string,
      path: string,
      body: Json,
    ): Promise<{ status: number; json: Json }> => {
      const res = await fetch(`${node.url}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${TOKEN}`,
          'content-type': method === 'PATCH' ? 'application/merge-patch+json' : 'application/json',
          'x-summary': 'vars',
        },
        body: JSON.stringify(body),
      });
      return { status: res.status, json: (await res.json()) as Json };
    };
    const fine = { wiki_base_url: 'https://wiki.example', _private: 'x', Logs2: 'y' };
    t.equal((await send('PUT', '/config', { name: 'Acme', skill_variables: fine })).status, 201);

    for (const key of ['wiki-base-url', 'wiki base url', '2fa_url', '']) {
      for (const [method, path, body] of [
        ['PATCH', '/config?dry_run=true', { skill_variables: { [key]: 'https://x.example' } }],
        ['PATCH', '/config', { skill_variables: { [key]: 'https://x.example' } }],
        ['PUT', '/config', { name: 'Acme', skill_variables: { ...fine, [key]: 'https://x.example' } }],
      ] as const) {
        const res = await send(method, path, body);
        t.equal(res.status, 400, `${method} ${path} ${JSON.stringify(key)}`);
        t.equal(res.json['error'], 'validation_error');
        const problems = res.json['problems'] as Array<{ path: string; kind: string; message: string }>;
        t.same(
          problems.map((p) => [p.path, p.kind]),
          [['skill_variables', 'invalid']],
        );
        t.match(problems[0]!.message, /\{\{name\}\}/);
      }
    }
  },
);
