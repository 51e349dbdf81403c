/**
 * The fallback scan of a stored event's head (events.head.ts): keys in any order, with any spacing JSON
 * allows, read in place with the same string reader and the same rules for what it can vouch for.
 */
import { eq, kb, literal, plain, QUOTE, skipString, type Head } from './events.head.js';

/** Field numbers, by key. */
const enum F {
  Id,
  Type,
  Source,
  Timestamp,
  Category,
  Summary,
  Actor,
  TraceId,
  SpanId,
  ParentSpanId,
  Failed,
  AgentId,
  Topic,
  Payload,
  Other,
}

const K = {
  id: kb('id'),
  type: kb('type'),
  source: kb('source'),
  timestamp: kb('timestamp'),
  category: kb('category'),
  summary: kb('summary'),
  actor: kb('actor'),
  trace_id: kb('trace_id'),
  span_id: kb('span_id'),
  parent_span_id: kb('parent_span_id'),
  failed: kb('failed'),
  agent_id: kb('agent_id'),
  topic: kb('topic'),
  payload: kb('payload'),
};

/** The field a key names, by its length and bytes (no string is made). */
function keyOf(b: Uint8Array, start: number, end: number): F {
  switch (end - start) {
    case 2:
      return eq(b, start, K.id) ? F.Id : F.Other;
    case 4:
      return eq(b, start, K.type) ? F.Type : F.Other;
    case 5:
      return eq(b, start, K.actor) ? F.Actor : eq(b, start, K.topic) ? F.Topic : F.Other;
    case 6:
      return eq(b, start, K.source) ? F.Source : eq(b, start, K.failed) ? F.Failed : F.Other;
    case 7:
      return eq(b, start, K.summary)
        ? F.Summary
        : eq(b, start, K.span_id)
          ? F.SpanId
          : eq(b, start, K.payload)
            ? F.Payload
            : F.Other;
    case 8:
      return eq(b, start, K.category)
        ? F.Category
        : eq(b, start, K.trace_id)
          ? F.TraceId
          : eq(b, start, K.agent_id)
            ? F.AgentId
            : F.Other;
    case 9:
      return eq(b, start, K.timestamp) ? F.Timestamp : F.Other;
    case 14:
      return eq(b, start, K.parent_span_id) ? F.ParentSpanId : F.Other;
    default:
      return F.Other;
  }
}

const isSpace = (c: number): boolean => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;

/** Reads a head whose keys come in any order, with any spacing JSON allows. */
export function scanAnyOrder(b: Uint8Array, h: Head): boolean {
  const n = b.length;
  h.idStart = h.typeStart = h.timestampStart = h.categoryStart = h.agentStart = h.traceStart = -1;
  h.topic = false;
  h.end = -1;
  // Required besides the ranges: source, summary, actor, span_id (strings), parent_span_id, failed.
  let seen = 0;
  let i = 0;
  while (i < n && isSpace(b[i] as number)) i += 1;
  if (b[i] !== 0x7b /* { */) return false;
  i += 1;
  let first = true;
  for (;;) {
    // At a key: `"key"` after `{` (first) or after `,`.
    if (!first) {
      if (b[i] !== 0x2c /* , */) return false;
      i += 1;
    }
    const keyAt = i;
    if (b[i] !== QUOTE) {
      while (i < n && isSpace(b[i] as number)) i += 1;
      if (b[i] !== QUOTE) return false;
    }
    const keyEnd = skipString(b, i, n);
    if (keyEnd < 0 || !plain) return false;
    const field = keyOf(b, i + 1, keyEnd - 1);
    if (field === F.Payload) {
      // The general decoder cuts at the first `,"payload":`: only that exact spelling is the same cut.
      if (first || keyAt !== i || b[keyEnd] !== 0x3a /* : */) return false;
      h.end = keyAt - 1;
      break;
    }
    i = keyEnd;
    while (i < n && isSpace(b[i] as number)) i += 1;
    if (b[i] !== 0x3a) return false;
    i += 1;
    while (i < n && isSpace(b[i] as number)) i += 1;
    const c = b[i];
    if (c === QUOTE) {
      const start = i + 1;
      const end = skipString(b, i, n);
      if (end < 0) return false;
      const simple = plain;
      i = end;
      const valueEnd = end - 1;
      switch (field) {
        case F.Id:
          if (!simple || valueEnd === start) return false;
          h.idStart = start;
          h.idEnd = valueEnd;
          break;
        case F.Type:
          if (!simple || valueEnd === start) return false;
          h.typeStart = start;
          h.typeEnd = valueEnd;
          break;
        case F.Timestamp:
          if (!simple) return false;
          h.timestampStart = start;
          h.timestampEnd = valueEnd;
          break;
        case F.Category:
          if (!simple) return false;
          h.categoryStart = start;
          h.categoryEnd = valueEnd;
          break;
        case F.AgentId:
          if (!simple) return false;
          h.agentStart = start;
          h.agentEnd = valueEnd;
          break;
        case F.TraceId:
          if (!simple) return false;
          h.traceStart = start;
          h.traceEnd = valueEnd;
          break;
        case F.Topic:
          h.topic = true;
          break;
        case F.Source:
          seen |= 1;
          break;
        case F.Summary:
          seen |= 2;
          break;
        case F.Actor:
          seen |= 4;
          break;
        case F.SpanId:
          seen |= 8;
          break;
        case F.ParentSpanId:
          seen |= 16;
          break;
        case F.Failed:
          return false;
        default:
          break;
      }
    } else if (c === 0x6e /* n */ && literal(b, i, 'null')) {
      // Only parent_span_id may be null (or an unknown key); a null id, type, … is not a row.
      if (field === F.ParentSpanId) seen |= 16;
      else if (field !== F.Other) return false;
      i += 4;
    } else if ((c === 0x74 && literal(b, i, 'true')) || (c === 0x66 && literal(b, i, 'false'))) {
      if (field === F.Failed) {
        h.failed = c === 0x74;
        seen |= 32;
      } else if (field !== F.Other) return false;
      i += c === 0x74 ? 4 : 5;
    } else return false;
    while (i < n && isSpace(b[i] as number)) i += 1;
    first = false;
  }
  return (
    seen === 63 &&
    h.idStart >= 0 &&
    h.typeStart >= 0 &&
    h.timestampStart >= 0 &&
    h.categoryStart >= 0 &&
    h.traceStart >= 0
  );
}
