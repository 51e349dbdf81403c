/**
 * Knowledge base search by meaning (not a test): BENCH_PAGES pages (default 10,000) folded into the pages read
 * model as a node folds them at boot (timed against decoding and checking the same records alone), each with a vector of BENCH_DIMENSIONS numbers (default 1,536, OpenAI's small
 * model) already in the page vectors bucket and cache, then BENCH_SEARCHES searches (default 200) of two
 * words each, answered in this process with `providers.embeddings` on (the word hits, then the pages closest
 * in meaning among all the others) against the same searches by words alone (the baseline), interleaved.
 * No embeddings call is timed: every page's vector is current and each query's vector is kept from a warm-up
 * pass, so the figure is the search's own work — every candidate page compared, the best kept.
 *
 * Run (from the repository root): node --import=tsx scripts/bench/pages-meaning.ts [--json]
 * Options (environment): BENCH_PAGES, BENCH_DIMENSIONS, BENCH_SEARCHES.
 */
import { ensureCatalogue, openMemoryBus } from '../../bus/index.js';
import {
  pagesProjection,
  pagesSearch,
  pageVectors,
  type PagesEmbedder,
  type PagesState,
} from '../../projections/index.js';
import { PageRecord, type ServiceCaller } from '../../schema/index.js';
import { quantile } from './node.js';
import { report, row } from './table.js';

const pages = Number(process.env['BENCH_PAGES'] ?? 10_000);
const dimensions = Number(process.env['BENCH_DIMENSIONS'] ?? 1536);
const searches = Number(process.env['BENCH_SEARCHES'] ?? 200);
/** Pages share topics: a query near a topic finds its pages by meaning, about pages / topics of them. */
const topics = 64;
const vocabulary = 2_000;
const by: ServiceCaller = { kind: 'operator', id: 'bench', name: null };

/** A small seeded generator (mulberry32), so every run folds and compares the same numbers. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const hash = (text: string): number => {
  let h = 2166136261;
  for (let i = 0; i < text.length; i += 1) h = Math.imul(h ^ text.charCodeAt(i), 16777619);
  return h >>> 0;
};

const centroids = Array.from({ length: topics }, (_, t) => {
  const next = random(1000 + t);
  return Float32Array.from({ length: dimensions }, () => next() * 2 - 1);
});

/** A text's vector: its topic's centroid (named in the text as `t<n>`) plus noise seeded by the text. */
function vectorOf(text: string): Float32Array {
  const topic = Number(/\bt(\d+)\b/.exec(text)?.[1] ?? 0) % topics;
  const next = random(hash(text));
  const centroid = centroids[topic] as Float32Array;
  return Float32Array.from(centroid, (c) => c + (next() * 2 - 1) * 0.7);
}

const embedder: PagesEmbedder = {
  model: 'bench-embedding',
  dimensions,
  minSimilarity: 0.3,
  embed: (texts) => Promise.resolve(texts.map(vectorOf)),
};

/** The page records a knowledge base of `pages` pages starts from, encoded as the stream holds them. */
function records(): Uint8Array[] {
  const next = random(7);
  const at = new Date().toISOString();
  const encoder = new TextEncoder();
  return Array.from({ length: pages }, (_, i) => {
    const words = Array.from({ length: 60 }, () => `w${Math.floor(next() * vocabulary)}`).join(' ');
    const record: PageRecord = {
      type: 'page.create',
      op_id: `bench-${i}`,
      at,
      by,
      page_id: `page-${String(i).padStart(6, '0')}`,
      container: 'BENCH',
      title: `Page ${i} t${i % topics}`,
      body: `A page about t${i % topics}: ${words}`,
      parent_id: null,
    };
    return encoder.encode(JSON.stringify(record));
  });
}

/** Folds the records as a node's projection does (decoded, checked, decided, indexed for words). */
function fold(data: readonly Uint8Array[]): PagesState {
  const projection = pagesProjection();
  const state = projection.init();
  data.forEach((bytes, i) => {
    const message = { seq: i + 1, data: bytes } as Parameters<typeof projection.apply>[1];
    projection.apply(state, message);
  });
  return state;
}

/** The baseline of the fold: the same records decoded and checked, nothing kept. */
function decodeOnly(data: readonly Uint8Array[]): number {
  const decoder = new TextDecoder();
  let valid = 0;
  for (const bytes of data) if (PageRecord.safeParse(JSON.parse(decoder.decode(bytes))).success) valid += 1;
  return valid;
}

async function main(): Promise<void> {
  const bus = await openMemoryBus({});
  try {
    const catalogue = await ensureCatalogue(bus);
    const vectors = pageVectors(catalogue.pageVectors);
    const data = records();
    const decoding = performance.now();
    if (decodeOnly(data) !== pages) throw new Error('a generated page record is not valid');
    const decodeMs = performance.now() - decoding;
    const folding = performance.now();
    const state = fold(data);
    const foldMs = performance.now() - folding;
    const all = [...state.pages.values()];
    const filled = await vectors.fill(all, embedder, by, all.length);
    if (filled !== all.length) throw new Error(`filled ${filled} of ${all.length} page vectors`);
    const byMeaning = pagesSearch({ vectors, embedder: () => embedder });
    const byWords = pagesSearch(undefined);
    const next = random(11);
    const queries = Array.from(
      { length: searches },
      () => `t${Math.floor(next() * topics)} w${Math.floor(next() * vocabulary)}`,
    );
    // Warm-up: each query's vector embedded and kept, the code paths compiled.
    let meaningRows = 0;
    for (const q of queries) meaningRows += (await byMeaning(state, { q, limit: 50 }, by)).pages.length;
    const meaningMs: number[] = [];
    const wordsMs: number[] = [];
    for (const q of queries) {
      let started = performance.now();
      await byWords(state, { q, limit: 50 }, by);
      wordsMs.push(performance.now() - started);
      started = performance.now();
      await byMeaning(state, { q, limit: 50 }, by);
      meaningMs.push(performance.now() - started);
    }
    const sum = (xs: readonly number[]): number => xs.reduce((a, b) => a + b, 0);
    const meaningRate = searches / (sum(meaningMs) / 1000);
    const wordsRate = searches / (sum(wordsMs) / 1000);
    meaningMs.sort((a, b) => a - b);
    wordsMs.sort((a, b) => a - b);
    const result = {
      pages,
      dimensions,
      fold_ms: Math.round(foldMs),
      decode_ms: Math.round(decodeMs),
      searches,
      rows_per_search: Number((meaningRows / searches).toFixed(1)),
      meaning_per_s: Math.round(meaningRate),
      meaning_p50_ms: Number(quantile(meaningMs, 0.5).toFixed(2)),
      meaning_p99_ms: Number(quantile(meaningMs, 0.99).toFixed(2)),
      words_per_s: Math.round(wordsRate),
      words_p50_ms: Number(quantile(wordsMs, 0.5).toFixed(2)),
      ratio_to_words: Number((meaningRate / wordsRate).toFixed(2)),
    };
    console.log(JSON.stringify(result));
    const scale = `${pages.toLocaleString('en-US')} pages × ${dimensions}`;
    report([
      row('pages-meaning', `fold of ${pages.toLocaleString('en-US')} page creates (vs decoded and checked only)`, pages / (foldMs / 1000), 'pages/s', pages / (decodeMs / 1000)), // prettier-ignore
      row('pages-meaning', `search by words and meaning, ${scale} (vs by words)`, meaningRate, 'searches/s', wordsRate), // prettier-ignore
      row(
        'pages-meaning',
        'search by words and meaning p50',
        result.meaning_p50_ms,
        'ms',
        result.words_p50_ms,
      ),
    ]);
  } finally {
    await bus.close();
  }
}

await main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
