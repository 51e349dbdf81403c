/**
 * Restores a JetStream export (backup.ts) into a server holding none of svc's streams, keeping every
 * sequence: KV records name their parent by sequence (kv-rule.ts), so renumbering would change which
 * writes won. A gap in the export (messages aged out, acknowledged work, superseded KV history) is filled
 * with placeholders on a restore-only subject, purged afterwards. Durable consumers come back at their
 * acknowledged floor. Stored times are the restore's (the server sets them), so age limits count from it.
 */
import { createReadStream } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { DeliverPolicy, type ConsumerConfig, type PubAck, type StreamConfig } from '@nats-io/jetstream';
import type { BackupFile } from '../../schema/index.js';
import { verifyFile } from '../backup-files.js';
import { BackupError } from '../errors.js';
import { ExportedMessage, ExportedStream } from './backup.js';
import { fromHeaders } from './codec.js';
import type { EngineHost } from './host.js';
import { apiCode, ApiCode, translate } from './translate.js';

/** Publishes in flight at once: enough to keep the server busy, few enough to check each ack's sequence. */
const window = 512;
const empty = new Uint8Array(0);

export async function restoreJetStreamExport(
  host: EngineHost,
  from: string,
  files: readonly BackupFile[],
): Promise<void> {
  for (const file of files) await verifyFile(from, file);
  const exports = files.filter((f) => f.path.endsWith('.json') && f.path.startsWith('streams/'));
  if (exports.length === 0) throw new BackupError(`the backup in ${from} holds no JetStream streams`);
  const streams: ExportedStream[] = [];
  for (const file of exports) {
    const parsed = ExportedStream.safeParse(JSON.parse(await readFile(join(from, file.path), 'utf8')));
    if (!parsed.success)
      throw new BackupError(`${file.path} is not a stream export: ${parsed.error.message}`);
    streams.push(parsed.data);
  }
  // Refuse before writing anything: a restore never merges into a stream that holds messages.
  for (const s of streams) await refuseOccupied(host, s.name);
  for (const s of streams) await restoreStream(host, from, s);
}

async function refuseOccupied(host: EngineHost, name: string): Promise<void> {
  try {
    const info = await host.jsm.streams.info(name);
    if (info.state.last_seq > 0) {
      throw new BackupError(
        `stream ${name} already exists on the server (last sequence ${info.state.last_seq}): restore into a server without svc's streams`,
      );
    }
    // Created but never written (a node started before the restore): made again from the export.
    await host.jsm.streams.delete(name);
  } catch (error) {
    if (error instanceof BackupError) throw error;
    if (apiCode(error) !== ApiCode.StreamNotFound) throw translate(error, `stream ${name}`);
  }
}

async function restoreStream(host: EngineHost, from: string, s: ExportedStream): Promise<void> {
  const original = s.config as unknown as StreamConfig;
  // A subject only this restore publishes on: the placeholders filling sequence gaps.
  const gapSubject = `_svc_restore.${s.name}`;
  const config: Partial<StreamConfig> & { name: string } = {
    ...original,
    name: s.name,
    subjects: [...(original.subjects ?? []), gapSubject],
    num_replicas: host.replicas,
  };
  try {
    await host.jsm.streams.add(config);
  } catch (error) {
    throw translate(error, `creating stream ${s.name} for a restore`);
  }
  let next = 1;
  let inFlight: Array<{ expected: number; ack: Promise<PubAck> }> = [];
  const settle = async (): Promise<void> => {
    const batch = inFlight;
    inFlight = [];
    for (const p of batch) {
      const ack = await p.ack.catch((error: unknown) => {
        throw translate(error, `restoring stream ${s.name}`);
      });
      if (ack.seq !== p.expected) {
        throw new BackupError(
          `restoring ${s.name}: sequence ${p.expected} landed at ${ack.seq} (another writer?)`,
        );
      }
    }
  };
  const send = async (subject: string, data: Uint8Array, headers?: Record<string, string>): Promise<void> => {
    const hdrs = fromHeaders(headers);
    inFlight.push({ expected: next, ack: host.js.publish(subject, data, hdrs ? { headers: hdrs } : {}) });
    next += 1;
    if (inFlight.length >= window) await settle();
  };
  const lines = createInterface({ input: createReadStream(join(from, 'streams', `${s.name}.jsonl`)) });
  for await (const text of lines) {
    if (text === '') continue;
    const parsed = ExportedMessage.safeParse(JSON.parse(text));
    if (!parsed.success) throw new BackupError(`${s.name}.jsonl: a line is not an exported message`);
    const m = parsed.data;
    if (m.seq < next) throw new BackupError(`${s.name}.jsonl: sequence ${m.seq} out of order`);
    while (next < m.seq) await send(gapSubject, empty);
    await send(m.subject, Buffer.from(m.data, 'base64'), m.headers);
  }
  while (next <= s.last_seq) await send(gapSubject, empty);
  await settle();
  try {
    await host.jsm.streams.purge(s.name, { filter: gapSubject });
    await host.jsm.streams.update(s.name, { ...config, subjects: original.subjects ?? [] });
  } catch (error) {
    throw translate(error, `finishing the restore of stream ${s.name}`);
  }
  for (const c of s.consumers) {
    const saved = c.config as unknown as ConsumerConfig;
    const { num_replicas: _replicas, ...rest } = saved;
    // Work-queue streams drop what was acknowledged; elsewhere the consumer resumes past its floor.
    const position: Partial<ConsumerConfig> =
      original.retention === 'workqueue'
        ? { deliver_policy: DeliverPolicy.All }
        : { deliver_policy: DeliverPolicy.StartSequence, opt_start_seq: c.ack_floor + 1 };
    const { opt_start_seq: _start, ...withoutStart } = rest;
    try {
      await host.jsm.consumers.add(s.name, { ...withoutStart, ...position });
    } catch (error) {
      throw translate(error, `restoring consumer ${c.name} on ${s.name}`);
    }
  }
}
