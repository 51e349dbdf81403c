import t from 'tap';
import { z } from 'zod';
import { builtinAsServiceTool, defineBuiltin, textResult } from '../../actors/index.js';
import { call, OPS, openAuth, startHarness } from '../http/fixtures/gateway-harness.js';
import { operatorSurface } from '../../scripts/operator-wiring.js';

t.test('a seat builtin acts for an operator as the bound person, op_id as its call id', async (t) => {
  const seen: Array<{ seat: string; call_id: string | undefined; args: unknown }> = [];
  const builtin = defineBuiltin({
    name: 'work_create',
    description: 'Create an item.',
    annotations: { title: 'Create', readOnlyHint: false },
    delivers: 'work_tracker',
    args: z.strictObject({ title: z.string() }),
    run(ctx, args) {
      seen.push({ seat: ctx.seat, call_id: ctx.call_id, args });
      if (args.title === 'taken')
        return Promise.resolve(textResult('Refused (bad_params): no such project', true));
      return Promise.resolve(textResult(JSON.stringify({ key: 'ENG-1' })));
    },
  });
  const tool = builtinAsServiceTool(builtin);
  t.equal(tool.write, true);
  t.equal(tool.delivers, 'work_tracker');
  const document = {
    name: 'Acme',
    roles: [{ name: 'Ada Ops', kind: 'human', contact: { operator_id: 'ops' } }],
  };
  const surface = operatorSurface({
    tools: [tool],
    auth: openAuth,
    chart: () => ({ document, epoch: 1 }),
    resolve: () => undefined,
  });
  t.same(surface.acts(), ['work_create']);
  const h = await startHarness({ auth: openAuth, routes: surface.routes });
  t.teardown(() => h.gw.close());
  const made = await call(`${h.base}/operator/act/work_create`, {
    method: 'POST',
    headers: { authorization: OPS, 'content-type': 'application/json' },
    body: JSON.stringify({ title: 'Fix it', op_id: 'op-7' }),
  });
  t.equal(made.status, 200);
  t.same((made.json as Record<string, unknown>)['result'], { key: 'ENG-1' });
  t.same(
    seen[0],
    { seat: 'ada-ops', call_id: 'op-7', args: { title: 'Fix it' } },
    'as the person; op_id not an argument',
  );
  const refused = await call(`${h.base}/operator/act/work_create`, {
    method: 'POST',
    headers: { authorization: OPS, 'content-type': 'application/json' },
    body: JSON.stringify({ title: 'taken' }),
  });
  t.equal(refused.status, 400);
  t.equal(refused.json?.error, 'bad_params', 'the builtin refusal keeps its code');
});
