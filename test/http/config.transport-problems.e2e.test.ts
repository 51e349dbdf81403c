/**
 * A notification transport refused on a config write names its fault as every other field's (write rule 3):
 * the field's own path, the spec's problem kind (`missing`, `shape`, `out_of_range`, `unknown_field`) and a
 * message in the house's words, never the schema library's. Against a built `svc serve`.
 */
import t from 'tap';
import { startNode, TOKEN } from '../harness/serve-node.js';

type Json = Record<string, unknown>;
type Problem = { path: string; kind: string; message: string };

t.test(
  'a transport left without a required field, with a field of the wrong shape, a list too short or an unknown key is refused at that field with its kind',
  async (t) => {
    const node = await startNode(t);
    const problems = async (method: string, path: string, body: Json): Promise<Problem[]> => {
      const res = await fetch(`${node.url}${path}`, {
        method,
        headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json', 'x-summary': 'n' },
        body: JSON.stringify(body),
      });
      t.equal(res.status, 400, `${method} ${path} ${JSON.stringify(body)}`);
      const answer = (await res.json()) as Json;
      t.equal(answer['error'], 'validation_error');
      return answer['problems'] as Problem[];
    };
    const doc = (transport: Json): Json => ({ name: 'Acme', notification_transports: { ops: transport } });
    const cases: Array<[Json, Array<[string, string]>]> = [
      [{ type: 'pager' }, [['notification_transports.ops.routing_key', 'missing']]],
      [
        { type: 'email', url: 'smtps://mail.example:465', from: 'svc@example.com' },
        [['notification_transports.ops.to', 'missing']],
      ],
      [
        { type: 'webhook', url: 'https://hooks.example', events: 'TurnFailed' },
        [['notification_transports.ops.events', 'shape']],
      ],
      [
        { type: 'email', url: 'smtps://mail.example:465', from: 'svc@example.com', to: [] },
        [['notification_transports.ops.to', 'out_of_range']],
      ],
      [
        { type: 'webhook', url: 'https://hooks.example', retries: 3 },
        [['notification_transports.ops.retries', 'unknown_field']],
      ],
    ];
    for (const [transport, expected] of cases) {
      for (const [method, path] of [
        ['PUT', '/config?dry_run=true'],
        ['PUT', '/config'],
      ] as const) {
        const found = await problems(method, path, doc(transport));
        t.same(
          found.map((p) => [p.path, p.kind]),
          expected,
          JSON.stringify(transport),
        );
        for (const p of found) t.notMatch(p.message, /Invalid input|Unrecognized key|Too small/);
      }
    }
  },
);
