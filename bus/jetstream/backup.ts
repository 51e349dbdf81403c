/**
 * Backup of the JetStream engine as a portable export: for every svc stream and bucket (`SVC_*`,
 * `KV_svc_*`) its configuration and durable consumers (`streams/<name>.json`) and its messages with
 * sequence, subject, stored time, headers and data (`streams/<name>.jsonl`). Each stream is read up to
 * its last sequence when its turn comes: a stream is one consistent state, the set is not one instant
 * (ops/backups.md). The restore (backup-restore.ts) rebuilds the same sequences.
 */
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ConsumerInfo, StreamConfig } from '@nats-io/jetstream';
import { z } from 'zod';
import type { BackupContents, BackupFile, BackupStream } from '../../schema/index.js';
import type { Bus, StoredMessage } from '../bus.js';
import { codeOf, describeFile } from '../backup-files.js';
import { BackupError } from '../errors.js';
import type { EngineHost } from './host.js';
import { translate } from './translate.js';

/** Streams of svc: the catalogue's and the KV buckets'. Another application's streams are left out. */
export const svcStream = (name: string): boolean => /^(SVC_|KV_svc_)/.test(name);

/** One line of `streams/<name>.jsonl`. */
export const ExportedMessage = z.object({
  seq: z.number().int().positive(),
  subject: z.string().min(1),
  time: z.string(),
  headers: z.record(z.string(), z.string()),
  data: z.base64(),
});
export type ExportedMessage = z.infer<typeof ExportedMessage>;

/** `streams/<name>.json`: what the server needs to recreate the stream and its durable consumers. */
export const ExportedStream = z.object({
  name: z.string().min(1),
  config: z.looseObject({ name: z.string(), subjects: z.array(z.string()).optional() }),
  first_seq: z.number().int().nonnegative(),
  last_seq: z.number().int().nonnegative(),
  messages: z.number().int().nonnegative(),
  consumers: z.array(
    z.object({
      name: z.string(),
      config: z.looseObject({}),
      /** Every message at or below this stream sequence was acknowledged. */
      ack_floor: z.number().int().nonnegative(),
    }),
  ),
});
export type ExportedStream = z.infer<typeof ExportedStream>;

export async function backupJetStream(host: EngineHost, bus: Bus, dir: string): Promise<BackupContents> {
  host.assertOpen();
  await host.ready();
  const names: string[] = [];
  try {
    for await (const name of host.jsm.streams.names()) if (svcStream(name)) names.push(name);
  } catch (error) {
    throw translate(error, 'listing streams for a backup');
  }
  names.sort();
  await mkdir(join(dir, 'streams'));
  const files: BackupFile[] = [];
  const streams: BackupStream[] = [];
  for (const name of names) {
    const exported = await exportStream(host, bus, dir, name);
    streams.push({
      name,
      messages: exported.messages,
      first_seq: exported.first_seq,
      last_seq: exported.last_seq,
    });
    files.push(
      await describeFile(dir, `streams/${name}.json`),
      await describeFile(dir, `streams/${name}.jsonl`),
    );
  }
  return { files, streams };
}

/**
 * The newest message of every subject the read to `until` did not see: each was superseded after `until`
 * before the read reached it. Kept at its own (later) sequence, so the key holds the value it had just after
 * the backup point rather than none; oldest first.
 */
async function supersededDuringRead(
  host: EngineHost,
  bus: Bus,
  name: string,
  seen: ReadonlySet<string>,
  until: number,
): Promise<StoredMessage[]> {
  let subjects: string[];
  try {
    const info = await host.jsm.streams.info(name, { subjects_filter: '>' });
    subjects = Object.keys(info.state.subjects ?? {}).filter((s) => !seen.has(s));
  } catch (error) {
    throw translate(error, `stream ${name} for a backup`);
  }
  const later: StoredMessage[] = [];
  for (const subject of subjects) {
    const m = await bus.lastMessage(name, subject);
    if (m !== null && m.seq > until) later.push(m);
  }
  return later.sort((a, b) => a.seq - b.seq);
}

async function exportStream(host: EngineHost, bus: Bus, dir: string, name: string): Promise<ExportedStream> {
  let config: StreamConfig;
  let until: number;
  let consumers: ConsumerInfo[] = [];
  try {
    const info = await host.jsm.streams.info(name);
    config = info.config;
    // The copy ends here; the restore continues numbering after it, as the stream would.
    until = info.state.last_seq;
    for await (const c of host.jsm.consumers.list(name)) consumers.push(c);
  } catch (error) {
    throw translate(error, `stream ${name} for a backup`);
  }
  // Only durables have a position worth keeping; followers' ordered consumers are made anew.
  consumers = consumers.filter((c) => c.config.durable_name !== undefined);
  const out = createWriteStream(join(dir, 'streams', `${name}.jsonl`), { flags: 'wx' });
  let messages = 0;
  let firstSeq = 0;
  const write = async (m: StoredMessage): Promise<void> => {
    const line: ExportedMessage = {
      seq: m.seq,
      subject: m.subject,
      time: m.time.toISOString(),
      headers: { ...m.headers },
      data: Buffer.from(m.data).toString('base64'),
    };
    if (!out.write(`${JSON.stringify(line)}\n`)) await once(out, 'drain');
    if (firstSeq === 0) firstSeq = m.seq;
    messages += 1;
  };
  // A stream keeping N messages per subject (a KV bucket) drops a subject's message when a newer one lands:
  // one written while the read had not reached it yet would leave that key out of the copy altogether.
  const perSubject = (config.max_msgs_per_subject ?? 0) > 0;
  const seen = new Set<string>();
  try {
    for await (const m of bus.replay(name, { toSeq: until })) {
      if (perSubject) seen.add(m.subject);
      await write(m);
    }
    if (perSubject) {
      const later = await supersededDuringRead(host, bus, name, seen, until);
      for (const m of later) await write(m);
      until = later.at(-1)?.seq ?? until;
    }
  } catch (error) {
    out.destroy();
    throw new BackupError(`reading stream ${name} for a backup failed (${codeOf(error)})`, { cause: error });
  }
  await new Promise<void>((resolve, reject) =>
    out.end((error?: Error | null) => (error ? reject(error) : resolve())),
  );
  const exported: ExportedStream = {
    name,
    config,
    first_seq: firstSeq === 0 ? until + 1 : firstSeq,
    last_seq: until,
    messages,
    consumers: consumers.map((c) => ({
      name: c.name,
      config: c.config,
      ack_floor: c.ack_floor.stream_seq,
    })),
  };
  await writeFile(join(dir, 'streams', `${name}.json`), `${JSON.stringify(exported, null, 2)}\n`, {
    flag: 'wx',
  });
  return exported;
}
