import t from 'tap';
import { companyJsonSchema, cronProblem } from '../../schema/index.js';

type Json = Record<string, unknown>;
const isRecord = (v: unknown): v is Json => v !== null && typeof v === 'object' && !Array.isArray(v);

/** Every `properties` entry anywhere in the schema, with its JSON pointer-ish path. */
function properties(node: unknown, at: string, out: Array<[string, Json]>): Array<[string, Json]> {
  if (Array.isArray(node)) node.forEach((item, i) => properties(item, `${at}/${i}`, out));
  if (!isRecord(node)) return out;
  for (const [key, value] of Object.entries(node)) {
    if (key === 'properties' && isRecord(value))
      for (const [name, property] of Object.entries(value)) {
        if (isRecord(property)) out.push([`${at}/${name}`, property]);
        properties(property, `${at}/${name}`, out);
      }
    else properties(value, `${at}/${key}`, out);
  }
  return out;
}

const schema = companyJsonSchema();
const defs = schema['$defs'] as Json;
const scheduleOf = (): Json => {
  const roles = (schema['properties'] as Json)['roles'] as Json;
  const seat = roles['items'] as Json;
  const schedules = (seat['properties'] as Json)['schedules'] as Json;
  return schedules['items'] as Json;
};

t.test('the company JSON Schema names itself and describes every property it lists', async (t) => {
  t.equal(schema['$id'], 'urn:svc:company-document');
  t.equal(schema['$schema'], 'https://json-schema.org/draft/2020-12/schema');
  t.type(schema['description'], 'string');
  const all = properties(schema, '', []);
  t.ok(all.length > 150, `walks the whole document (${all.length} properties)`);
  const bare = all.filter(([, property]) => typeof property['description'] !== 'string').map(([at]) => at);
  t.same(bare, [], 'no property without a description');
  t.ok(isRecord(defs['Unit']) && typeof defs['Unit']['description'] === 'string');
});

t.test('the cron pattern admits what the scheduler parses and refuses what it cannot', async (t) => {
  const cronSchema = (scheduleOf()['properties'] as Json)['cron'] as Json;
  const pattern = new RegExp(String(cronSchema['pattern']));
  const fires = [
    '0 9 * * 1-5',
    '*/30 * * * *',
    '0 8 * * MON',
    '0 8 * * mon-fri',
    '30 7 * * 1-5',
    '0 9 1 * *',
    '0 */2 * * *',
    '15 10 * JAN,JUL *',
    '0 0 L * *',
    '0 0 * * 5L',
    '0 0 * * 1#2',
    '0 0 ? * 1',
    '30 0 9 * * 1-5',
    '0 0 * * 7',
    '5,35 8-18/2 * * *',
    '@daily',
    '@hourly',
  ];
  for (const cron of fires) {
    t.equal(cronProblem(cron, 'UTC'), null, `the scheduler parses ${cron}`);
    t.match(cron, pattern, `the pattern admits ${cron}`);
  }
  const refused = [
    '61 8 * * 1',
    '30 9 * * MONDAY-FRI',
    '0 24 * * *',
    '0 9 * *',
    '0 9 32 * *',
    '0 9 * 13 *',
    'every day',
  ];
  for (const cron of refused) {
    // Four fields pass cron-parser but not the document's shape check (fields.ts: five or six).
    if (cron.split(' ').length !== 4) t.not(cronProblem(cron, 'UTC'), null, `the scheduler refuses ${cron}`);
    t.notMatch(cron, pattern, `the pattern refuses ${cron}`);
  }
  t.match('${STANDUP_CRON}', pattern, 'a ${VAR} reference is left to the node');
});

t.test('timezones are offered by name, and a reference is admitted', async (t) => {
  const timezone = (schema['properties'] as Json)['timezone'] as Json;
  t.type(timezone['description'], 'string');
  const [names, reference] = timezone['anyOf'] as [Json, Json];
  const list = names['enum'] as string[];
  for (const name of ['Europe/Berlin', 'America/New_York', 'UTC'])
    t.ok(list.includes(name), `${name} offered`);
  t.notOk(list.includes('Mars/Olympus_Mons'));
  t.match('${COMPANY_TZ}', new RegExp(String(reference['pattern'])));
  const scheduleTz = (scheduleOf()['properties'] as Json)['timezone'] as Json;
  t.ok(Array.isArray(scheduleTz['anyOf']), 'a schedule timezone carries the same names');
});

t.test(
  'a schedule name carries the bound a new write is held to, and no grammar: any line of text',
  async (t) => {
    const name = (scheduleOf()['properties'] as Json)['name'] as Json;
    t.equal(name['maxLength'], 64);
    t.equal(name['pattern'], undefined, 'spaces and any script are names');
  },
);
