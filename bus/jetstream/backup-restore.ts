/**
 * Restores a JetStream export (backup.ts) into a server holding none of svc's streams, keeping every
 * sequence: KV records name their parent by sequence (kv-rule.ts), so renumbering would change which
 * writes won. A gap in the export (messages aged out, acknowledged work, superseded KV history) is filled
 * with placeholders on a restore-only subject, purged afterwards. Durable consumers come back at their
 * acknowledged floor. Stored times are the restore's (the server sets them), so age limits count from it.
 * Nothing is created before every file has been checked, and a failure part-way removes the streams made.
 */
import { createReadStream } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { DeliverPolicy, type ConsumerConfig, type PubAck, type StreamConfig } from '@nats-io/jetstream';
import { issuesLine, type BackupFile } from '../../schema/index.js';
import { codeOf, failRestore, verifyFile, type UndoRestore } from '../backup-files.js';
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
): Promise<UndoRestore> {
  for (const file of files) await verifyFile(from, file);
  const listed = new Set(files.map((f) => f.path));
  const exports = files.filter((f) => f.path.endsWith('.json') && f.path.startsWith('streams/'));
  if (exports.length === 0) throw new BackupError(`the backup in ${from} holds no JetStream streams`);
  // Every file is read and checked before the first stream is created: a backup this build cannot load
  // (hand-assembled, foreign, another build's) is refused with the server untouched.
  const streams: ExportedStream[] = [];
  for (const file of exports) {
    const s = await readExport(from, file.path);
    const messages = messagesFile(s.name);
    if (!listed.has(messages))
      throw new BackupError(`backup file ${file.path}: its messages, ${messages}, are not in the manifest`);
    await checkMessages(from, s);
    streams.push(s);
  }
  // Refuse before writing anything: a restore never merges into a stream that holds messages.
  for (const s of streams) await refuseOccupied(host, s.name);
  const created: string[] = [];
  const undo: UndoRestore = async () => {
    for (const name of created) await removeStream(host, name);
  };
  try {
    for (const s of streams) {
      // Named before it is asked for: a stream the server made but never confirmed goes too.
      created.push(s.name);
      await restoreStream(host, from, s);
    }
  } catch (error) {
    return failRestore(error, undo);
  }
  return undo;
}

const messagesFile = (stream: string): string => `streams/${stream}.jsonl`;

/** `streams/<name>.json`, parsed and checked; the stream it names must be the file's own. */
async function readExport(from: string, path: string): Promise<ExportedStream> {
  let json: unknown;
  try {
    json = JSON.parse(await readFile(join(from, path), 'utf8'));
  } catch (error) {
    throw new BackupError(`backup file ${path} is not a stream export: not JSON (${codeOf(error)})`, {
      cause: error,
    });
  }
  const parsed = ExportedStream.safeParse(json);
  if (!parsed.success)
    throw new BackupError(`backup file ${path} is not a stream export: ${issuesLine(parsed.error.issues)}`);
  if (path !== `streams/${parsed.data.name}.json`)
    throw new BackupError(`backup file ${path} exports stream ${parsed.data.name}, not its own`);
  return parsed.data;
}

/** Every line of a stream's messages: an exported message, in rising order, within the stream's export. */
async function checkMessages(from: string, s: ExportedStream): Promise<void> {
  const path = messagesFile(s.name);
  let previous = 0;
  let count = 0;
  for await (const [line, text] of lines(from, path)) {
    const at = `backup file ${path} line ${line}`;
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (error) {
      throw new BackupError(`${at} is not JSON (${codeOf(error)})`, { cause: error });
    }
    const parsed = ExportedMessage.safeParse(json);
    if (!parsed.success)
      throw new BackupError(`${at} is not an exported message: ${issuesLine(parsed.error.issues)}`);
    const { seq } = parsed.data;
    if (seq <= previous) throw new BackupError(`${at}: sequence ${seq} does not follow ${previous}`);
    if (seq > s.last_seq)
      throw new BackupError(`${at}: sequence ${seq} is past the stream's last, ${s.last_seq}`);
    previous = seq;
    count += 1;
  }
  if (count !== s.messages)
    throw new BackupError(
      `backup file ${path} holds ${count} messages; streams/${s.name}.json says ${s.messages}`,
    );
}

/** The non-empty lines of a backup file with their numbers; a read error rejects, never goes unhandled. */
async function* lines(from: string, path: string): AsyncGenerator<[number, string]> {
  const input = createReadStream(join(from, path));
  let failure: unknown;
  const reader = createInterface({ input, crlfDelay: Infinity });
  input.once('error', (error) => {
    failure = error;
    reader.close();
  });
  let line = 0;
  try {
    for await (const text of reader) {
      line += 1;
      if (text !== '') yield [line, text];
    }
  } finally {
    // A caller that stops early (a refused line) leaves the file open otherwise.
    input.destroy();
  }
  if (failure !== undefined)
    throw new BackupError(`backup file ${path} cannot be read (${codeOf(failure)})`, { cause: failure });
}

async function removeStream(host: EngineHost, name: string): Promise<void> {
  try {
    await host.jsm.streams.delete(name);
  } catch (error) {
    if (apiCode(error) !== ApiCode.StreamNotFound) throw translate(error, `removing restored stream ${name}`);
  }
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
    const ack = host.js.publish(subject, data, hdrs ? { headers: hdrs } : {});
    // settle() stops at the first failed ack; the rest of its batch must not reject unhandled.
    ack.catch(() => undefined);
    inFlight.push({ expected: next, ack });
    next += 1;
    if (inFlight.length >= window) await settle();
  };
  // Checked line by line before any stream was created (checkMessages).
  for await (const [, text] of lines(from, messagesFile(s.name))) {
    const m = ExportedMessage.parse(JSON.parse(text));
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
