// `node --import ./record-loads.mjs …` appends the URL of every module the process loads (its own files,
// packages, node: builtins) to the file named by $SVC_LOADS_FILE, one a line: a test asks what a command
// loaded. Loader hooks run on a thread of their own, where this same file is loaded again to be them.
import { appendFileSync } from 'node:fs';
import { register } from 'node:module';
import { isMainThread } from 'node:worker_threads';

if (isMainThread) register(import.meta.url);

export async function load(url, context, nextLoad) {
  if (process.env.SVC_LOADS_FILE) appendFileSync(process.env.SVC_LOADS_FILE, `${url}\n`);
  return nextLoad(url, context);
}
