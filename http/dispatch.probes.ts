/**
 * The probes (`/health`, `/ready`, on the api listener only): never guarded, never public, answered
 * whatever the node's state.
 */
import type { HttpResponse } from '@trufflesuite/uws-js-unofficial';
import { conventional, unseen } from './conventions.js';
import { prepare, writeAnswer, type Prepared, type WriteContext } from './respond.js';
import {
  answerNow,
  logRequest,
  type GatewayCore,
  type ListenerState,
  type RequestLine,
} from './dispatch.core.js';
import { otherMethod } from './dispatch.refusals.js';

/**
 * The health envelope is built once per tick and its encoding reused for every probe within it: a probe
 * storm costs one envelope per tick, not one per request. What the gateway itself sees change (a drain
 * starting, a request coming into flight) or the node reports fresh (the seats it holds, its bus link, phase
 * and posture: what `/ready` also reads) builds it anew at once; other facts are at most a tick old.
 */
const HEALTH_TICK_MS = 100;
const healthAnswers = new WeakMap<GatewayCore, { at: number; key: string; prepared: Prepared }>();
function healthAnswer(core: GatewayCore, l: ListenerState): Prepared {
  const now = performance.now();
  const key = `${core.isDraining()}:${l.live.size}:${core.probes.fresh?.() ?? ''}`;
  const cached = healthAnswers.get(core);
  if (cached && cached.key === key && now - cached.at < HEALTH_TICK_MS) return cached.prepared;
  const prepared = prepare({ status: 200, body: core.probes.health() });
  healthAnswers.set(core, { at: now, key, prepared });
  return prepared;
}

const probeMethods = ['GET', 'HEAD'];
const probePaths = new Map<string, 'health' | 'ready'>([
  ['/health', 'health'],
  ['/health/', 'health'],
  ['/ready', 'ready'],
  ['/ready/', 'ready'],
]);

/** Answers the request when it asks for a probe this listener serves; false when it does not. */
export function answerProbe(
  core: GatewayCore,
  l: ListenerState,
  res: HttpResponse,
  base: WriteContext,
  line: RequestLine,
): boolean {
  const { method, path } = line;
  const probe = l.serveProbes ? probePaths.get(path) : undefined;
  if (probe === undefined) return false;
  line.route = `/${probe}`;
  if (method !== 'GET' && !base.head) {
    answerNow(core, res, base, otherMethod(method, path, probeMethods), line);
    return true;
  }
  if (probe === 'health') {
    writeAnswer(res, base, healthAnswer(core, l));
    logRequest(core, 'debug', line, 200);
    return true;
  }
  const ready = core.probes.ready();
  const reply = conventional({ status: ready.ready ? 200 : 503, body: ready }, unseen);
  writeAnswer(res, base, prepare(reply));
  logRequest(core, 'debug', line, reply.status);
  return true;
}
