import t from 'tap';
import { Commands, type Command } from '../../schema/index.js';

/** Every entry of the catalogue, the addressed ones built for one node. */
function entries(): Command[] {
  const all: Command[] = [];
  for (const area of Object.values(Commands))
    for (const entry of Object.values(area) as Array<Command | ((node: string) => Command)>)
      all.push(typeof entry === 'function' ? entry('node-a') : entry);
  return all;
}

t.test('the catalogue keeps the subjects the fleet already answers on', async (t) => {
  t.equal(Commands.config.write.subject, 'svc.cmd.config.write');
  t.equal(Commands.secrets.put.subject, 'svc.cmd.secrets.put');
  t.equal(Commands.secrets.delete.subject, 'svc.cmd.secrets.delete');
  t.equal(Commands.secrets.rekey.subject, 'svc.cmd.secrets.rekey');
  t.equal(Commands.seats.pause.subject, 'svc.cmd.seats.pause');
  t.equal(Commands.seats.resume.subject, 'svc.cmd.seats.resume');
  t.equal(Commands.seats.pauseAt('node-b').subject, 'svc.cmd.seats-node-b.pause');
  t.equal(Commands.seats.resumeAt('node-b').subject, 'svc.cmd.seats-node-b.resume');
});

t.test('every command has its own subject, a name and a timeout', async (t) => {
  const all = entries();
  t.equal(new Set(all.map((c) => c.subject)).size, all.length, 'no two commands share a subject');
  for (const command of all) {
    t.match(command.subject, /^svc\.cmd\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/, command.name);
    t.equal(command.subject, `svc.cmd.${command.name}`, `${command.name} names its subject`);
    t.ok(command.timeoutMs > 0, `${command.name} has a timeout`);
  }
});

t.test('an address that would widen a subject is refused', async (t) => {
  for (const node of ['a.>', '*', 'a b', ''])
    t.throws(() => Commands.seats.pauseAt(node), RangeError, JSON.stringify(node));
});
