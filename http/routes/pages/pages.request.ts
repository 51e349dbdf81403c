/**
 * What the knowledge routes share: the caller a write is recorded as, and a write's refusal as its
 * catalogued error. (A write's op_id is judged as every write's is: ../op-id.param.ts.)
 */
import type { ServiceCaller } from '../../../schema/index.js';
import type { PageWriteResult } from '../../../projections/index.js';
import { ApiError } from '../../api-error.js';
import type { Actor } from '../../types.js';

export interface KnowledgeCallers {
  /** Who a write by `actor` is recorded as (a token bound to a person is that person). */
  caller(actor: Actor | null): ServiceCaller;
}

/** A refused write as its catalogued error. */
export function refusedWrite(result: Extract<PageWriteResult, { ok: false }>): ApiError {
  return new ApiError(result.error, { detail: result.detail });
}
