/**
 * The narrow prompt of each phase (ops/turn-engine.md "Prompts"): the charter, the seat, its place in
 * the org and the trigger, then what this phase must do and answer. Plan and review answer with one
 * JSON object; the parsers read it leniently (the first `{` to the last `}`).
 */
import { z } from 'zod';
import type { PhaseName, PlanDecision, Turn } from './seat.machine.js';
import type { Charter, SeatProfile } from './seat.profile.js';
import { jsonAnswer } from './json-answer.js';

const list = (items: readonly string[]): string => items.map((i) => `- ${i}`).join('\n');
const section = (title: string, lines: Array<string | null>): string | null => {
  const body = lines.filter((l): l is string => l !== null && l !== '').join('\n');
  return body === '' ? null : `## ${title}\n${body}`;
};
const field = (label: string, value: string): string | null => (value === '' ? null : `${label}: ${value}`);
const items = (label: string, values: readonly string[]): string | null =>
  values.length === 0 ? null : `${label}:\n${list(values)}`;

const instructions: Record<PhaseName, string> = {
  plan: [
    'Phase: PLAN. Decide what the trigger asks of you, the steps, and how you will know the work is done.',
    'You may call tools to look things up; do not act yet.',
    'Answer with one JSON object and nothing else:',
    '{"decision": "plan" | "direct" | "skip", "steps": [string], "success_criteria": [string], "tools": [tool names]}',
    '"skip": nothing is asked of you. "direct": one delivering tool call finishes the work (no review).',
  ].join('\n'),
  execute: [
    'Phase: EXECUTE. Carry out the plan with the tools you have. Reach people only through your tools.',
    'When done, answer with a short account of what you did and what came of it.',
  ].join('\n'),
  review: [
    "Phase: REVIEW. Judge the account against the plan's success criteria.",
    'Answer with one JSON object and nothing else:',
    '{"verdict": "done" | "self_iterate", "notes": string}',
    '"self_iterate" sends the work back to planning with your notes.',
  ].join('\n'),
};

export function systemPrompt(charter: Charter, seat: SeatProfile, phase: PhaseName): string {
  const parts = [
    `You are ${seat.name} (@${seat.handle}), a member of ${charter.name || 'the company'}.`,
    section('Company', [
      field('Mission', charter.mission),
      field('Vision', charter.vision),
      items('Policies', charter.policies),
    ]),
    section('Your seat', [
      field('Goal', seat.goal),
      field('Backstory', seat.backstory),
      items('Responsibilities', seat.responsibilities),
      items('Behavioral guidelines', seat.behavioral_guidelines),
    ]),
    section('Your place in the org', [
      field('Unit', seat.unit ?? ''),
      field('Manager', seat.manager ? `@${seat.manager}` : ''),
      field('Reports', seat.reports.map((r) => `@${r}`).join(', ')),
    ]),
    instructions[phase],
  ];
  return parts.filter((p): p is string => p !== null).join('\n\n');
}

/**
 * The user message: the trigger, what the seat knows that bears on it (plan and execute: the person who sent
 * it, lessons from like tasks), and what earlier phases of this turn produced.
 */
export function phaseMessage(turn: Turn, phase: PhaseName, known: string | null = null): string {
  const w = turn.wake;
  const parts = [
    `Trigger: ${w.kind} from ${w.source}\n${w.summary}`,
    Object.keys(w.payload).length > 0 ? `Details: ${JSON.stringify(w.payload).slice(0, 4000)}` : null,
    phase !== 'review' ? known : null,
    phase !== 'plan' && turn.plan ? `Plan:\n${turn.plan}` : null,
    phase === 'plan' && turn.notes ? `The last review sent the work back:\n${turn.notes}` : null,
    phase === 'review' ? `Account of the work:\n${turn.artifact ?? ''}` : null,
  ];
  return parts.filter((p): p is string => p !== null).join('\n\n');
}

const AnyObject = z.record(z.string(), z.unknown());
const jsonObject = (text: string): Record<string, unknown> | null => jsonAnswer(text, AnyObject) ?? null;

export interface ParsedPlan {
  readonly decision: PlanDecision;
  /** The plan as the next phases read it. */
  readonly plan: string;
  /** Tools the plan picked (empty: all of the seat's tools). */
  readonly tools: string[];
}

/** An unreadable plan is taken as a plan in prose (execute and review still run). */
export function parsePlan(text: string): ParsedPlan {
  const obj = jsonObject(text);
  if (!obj) return { decision: 'plan', plan: text, tools: [] };
  const d = obj['decision'];
  const decision: PlanDecision = d === 'skip' || d === 'direct' ? d : 'plan';
  const strs = (v: unknown): string[] =>
    Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
  const steps = strs(obj['steps']);
  const criteria = strs(obj['success_criteria']);
  const plan = [
    steps.length ? `Steps:\n${list(steps)}` : '',
    criteria.length ? `Success criteria:\n${list(criteria)}` : '',
  ]
    .filter(Boolean)
    .join('\n');
  return { decision, plan: plan || text, tools: strs(obj['tools']) };
}

/** An unreadable verdict counts as `done`: a review that cannot say no must not loop the turn. */
export function parseReview(text: string): { verdict: 'done' | 'self_iterate'; notes: string } {
  const obj = jsonObject(text);
  const verdict = obj?.['verdict'] === 'self_iterate' ? 'self_iterate' : 'done';
  const notes = typeof obj?.['notes'] === 'string' ? obj['notes'] : text;
  return { verdict, notes };
}

/** What the model reads before the closing call of a phase that used up its tool rounds. */
export const closingNote = (rounds: number): string =>
  `You have used this phase's ${rounds} tool rounds: no more tools can be called. ` +
  'Give your account now: what you did, what it showed, and what is left undone.';
