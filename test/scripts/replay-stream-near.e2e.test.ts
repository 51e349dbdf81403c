/**
 * `svc replay --stream` naming a stream the store lacks, on built `svc` processes: the refusal names the
 * stream meant when one is within a typo (`svc_config` for SVC_CONFIG, `SVC_EVENT` for SVC_EVENTS) and
 * adds nothing when none is near. It said only "stream svc_config does not exist".
 */
import t from 'tap';
import { runSvc } from '../harness/child.js';
import { startNode, TOKEN } from '../harness/serve-node.js';

t.test('svc replay of a stream the store lacks names the near stream', async (t) => {
  const node = await startNode(t);
  node.run.kill('SIGTERM');
  t.equal(await node.run.exited, 0, 'the node stopped: its memory store is single-process');

  const cases: Array<[string, string]> = [
    ['svc_config', 'svc: stream svc_config does not exist (did you mean SVC_CONFIG?)\n'],
    ['SVC_EVENT', 'svc: stream SVC_EVENT does not exist (did you mean SVC_EVENTS?)\n'],
    ['KV_svc_cord', 'svc: stream KV_svc_cord does not exist (did you mean KV_svc_coord?)\n'],
    ['AUDIT', 'svc: stream AUDIT does not exist\n'],
  ];
  for (const [stream, said] of cases) {
    const run = runSvc(['replay', '--config', node.configFile, '--stream', stream], { SVC_TOKEN: TOKEN });
    t.teardown(() => run.kill('SIGKILL'));
    t.equal(await run.exited, 1, stream);
    t.equal(run.stderr(), said, stream);
    t.equal(run.stdout(), '', stream);
  }
  // The stream meant reads as before.
  const right = runSvc(['replay', '--config', node.configFile, '--stream', 'SVC_CONFIG'], {
    SVC_TOKEN: TOKEN,
  });
  t.teardown(() => right.kill('SIGKILL'));
  t.equal(await right.exited, 0, right.stderr());
});
