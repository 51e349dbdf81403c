/** How a seat's chain is resolved, and the registry as the `providers` subsystem of an apply. */
import t from 'tap';
import type { SubsystemApplier } from '../../../actors/index.js';
import { Company } from '../../../schema/index.js';
import { ask, drain } from './helpers.js';
import { doc, harness, server } from './registry-harness.js';

t.test(
  'a seat resolves to its pinned provider, else to llm_order, else to every entry in order',
  async (t) => {
    const llm = { a: { type: 'openai', model: 'm' }, b: { type: 'anthropic', model: 'm' } };
    const { registry } = harness({
      ...doc(llm, ['b', 'a'], [{ name: 'Ada Pinned', llm: 'a' }, { name: 'Free Seat' }]),
      units: [
        {
          name: 'Eng',
          type: 'team',
          children: [{ name: 'Core', type: 'team', roles: [{ name: 'Deep', handle: 'deep', llm: 'b' }] }],
        },
      ],
    });
    t.same(registry.resolve('ada-pinned'), ['a']);
    t.same(registry.resolve('free-seat'), ['b', 'a']);
    t.same(registry.resolve('deep'), ['b'], 'seats in nested units are found');
    t.same(registry.resolve({ llm: 'a' }), ['a']);
    t.same(registry.resolve({}), ['b', 'a']);
    t.same(harness(doc(llm)).registry.resolve('anyone'), ['a', 'b']);
    const applier: SubsystemApplier = registry;
    t.equal(applier.name, 'providers');
  },
);

t.test(
  'apply swaps entries in place: a call in flight finishes on the old entry, unchanged pools keep cooldowns',
  async (t) => {
    const oldServer = await server(t, {
      wire: 'openai',
      script: [{ kind: 'text', text: 'old entry', hold: 'go' }],
    });
    const newServer = await server(t, { wire: 'anthropic', script: [{ kind: 'text', text: 'new entry' }] });
    const stable = await server(t, {
      wire: 'openai',
      script: [{ kind: 'status', status: 429, headers: { 'retry-after': '600' } }],
    });
    const stableEntry = { type: 'openai', model: 'g', base_url: stable.baseUrl, api_keys: ['${KEY_B}'] };
    const first = doc(
      {
        main: { type: 'openai', model: 'g', base_url: oldServer.baseUrl, api_keys: ['${KEY_A}'] },
        stable: stableEntry,
      },
      ['main', 'stable'],
    );
    const h = harness(first);
    await drain(h.registry.call(['stable'], ask('cool the stable key')));
    const cooled = h.registry.snapshot()['stable'];

    const inFlight = h.registry.call(['main'], ask('q'));
    await oldServer.waitForRequests(1);
    const second = doc(
      {
        main: { type: 'anthropic', model: 'c', base_url: newServer.baseUrl, api_keys: ['${KEY_C}'] },
        stable: stableEntry,
      },
      ['main', 'stable'],
    );
    await h.registry.apply(second);
    t.match(h.registry.snapshot()['main'], { type: 'anthropic', model: 'c', keys: [{ ref: 'KEY_C' }] });
    t.same(h.registry.snapshot()['stable'], cooled, 'the unchanged entry kept its cooldown');

    const after = await drain(h.registry.call(h.registry.resolve('x'), ask('q')));
    t.equal(after.result?.text, 'new entry');
    oldServer.release('go');
    t.equal(
      (await drain(inFlight)).result?.text,
      'old entry',
      'the call in flight finished where it started',
    );

    await h.registry.rollback();
    t.match(
      h.registry.snapshot()['main'],
      { type: 'openai', keys: [{ ref: 'KEY_A' }] },
      'rollback restores the prior entries',
    );
    await h.registry.apply({ name: 'Acme' });
    t.same(h.registry.snapshot(), {}, 'a document without providers leaves none');
  },
);

t.test(
  'a call in flight on an entry renamed, removed or redefined stays counted in the credential pool until it ends',
  async (t) => {
    const held = await server(t, {
      wire: 'openai',
      script: [
        { kind: 'text', text: 'renamed', hold: 'renamed' },
        { kind: 'text', text: 'redefined', hold: 'redefined' },
      ],
    });
    const entry = { type: 'openai', model: 'g', base_url: held.baseUrl, api_keys: ['${KEY_A}'] };
    const h = harness(doc({ old: entry }));
    const renamed = h.registry.call(['old'], ask('q'));
    await held.waitForRequests(1);
    await h.registry.apply(doc({ new: entry }));
    t.match(h.registry.snapshot(), {
      old: { model: 'g', keys: [{ ref: 'KEY_A', in_flight: 1 }] },
      new: { keys: [{ ref: 'KEY_A', in_flight: 0 }] },
    });
    held.release('renamed');
    t.equal((await drain(renamed)).result?.text, 'renamed');
    t.same(Object.keys(h.registry.snapshot()), ['new'], 'the old name goes once its last call ended');

    const redefined = h.registry.call(['new'], ask('q'));
    await held.waitForRequests(2);
    await h.registry.apply(doc({ new: { ...entry, model: 'g2', api_keys: ['${KEY_A}', '${KEY_B}'] } }));
    t.match(h.registry.snapshot()['new'], {
      model: 'g2',
      keys: [
        { ref: 'KEY_A', in_flight: 1 },
        { ref: 'KEY_B', in_flight: 0 },
      ],
    });
    held.release('redefined');
    await drain(redefined);
    t.match(h.registry.snapshot()['new'], { keys: [{ ref: 'KEY_A', in_flight: 0 }, { in_flight: 0 }] });
  },
);

t.test(
  'an embeddings change is applied as a restart-required warning only, once the apply ended',
  async (t) => {
    const llm = { a: { type: 'openai', model: 'm' } };
    const embeddings = { type: 'openai', model: 'text-embed-1', api_key: '${KEY_A}', dimensions: 256 };
    const first = Company.parse({ name: 'Acme', providers: { llm, embeddings } });
    const { registry, lines } = harness(null);
    // As the applier drives it: the document, then the apply's end with what is in force.
    const applied = async (doc: Company): Promise<void> => {
      await registry.apply(doc);
      registry.settled(doc);
    };
    await applied(first);
    const warnings = () => lines.filter((l) => l.includes('providers.embeddings'));
    t.same(warnings(), [], 'the first document is what runs');
    await applied(Company.parse({ ...first, name: 'Renamed' }));
    t.same(warnings(), [], 'unchanged embeddings: no warning');
    const changed = Company.parse({
      name: 'Acme',
      providers: { llm, embeddings: { ...embeddings, model: 'text-embed-2' } },
    });
    await registry.apply(changed);
    t.same(warnings(), [], 'nothing is said before the apply ended');
    registry.settled(changed);
    t.equal(warnings().length, 1);
    t.match(JSON.parse(warnings()[0]!), { level: 40, event: 'restart_required', msg: /read at start only/ });
    t.notOk(warnings()[0]!.includes('sk-secret'), 'no credential in the line');
    t.same(registry.resolve('anyone'), ['a'], 'the LLM entries are applied as usual');
    await applied(Company.parse({ ...changed, name: 'Renamed' }));
    t.equal(warnings().length, 1, 'said once per change, not on each later apply');
  },
);
