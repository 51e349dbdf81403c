/** A seat's memory as `/agents/{id}/memory` reads it: notes, episodes, people and skills. */
import type { ComponentChildren } from 'preact';
import { useQuestion } from '../live/context.js';
import { Answer } from '../ui/parts.js';
import { Ago } from '../ui/ago.js';

interface Memory {
  personal_memories?: {
    long?: Array<{ id: string; content: string }>;
    short?: Array<{ id: string; content: string; expired?: boolean }>;
  };
  episodes?: Array<{ id: string; task_summary?: string; review_outcome?: string; ended_at?: string }>;
  counterparty_profiles?: Array<{
    subject_label?: string;
    subject_name?: string;
    interaction_count?: number;
  }>;
  synthesized_skills?: Array<{ id: string; name: string; description?: string }>;
}

/** A section's list, or in words that it is empty: a list without items is announced as one, and says nothing. */
function Listed(props: { items: readonly unknown[] | undefined; none: string; children: ComponentChildren }) {
  if (!props.items?.length) return <p class="muted">{props.none}</p>;
  return <ul>{props.children}</ul>;
}

export function MemoryView(props: { handle: string; again: unknown }) {
  const asked = useQuestion<Memory>('memory', { id: props.handle }, props.again);
  return (
    <Answer asked={asked} what="memory">
      {(m) => {
        const notes = [...(m.personal_memories?.long ?? []), ...(m.personal_memories?.short ?? [])];
        return (
          <div class="memory">
            <h3>Notes</h3>
            {notes.length === 0 ? (
              <p class="muted">No notes yet: the seat keeps them with memory_remember.</p>
            ) : (
              <ul>
                {notes.map((n) => (
                  <li key={n.id}>{n.content}</li>
                ))}
              </ul>
            )}
            <h3>Episodes ({m.episodes?.length ?? 0})</h3>
            <Listed items={m.episodes} none="No episodes yet: one is kept as each turn ends.">
              {(m.episodes ?? []).slice(0, 10).map((e) => (
                <li key={e.id}>
                  {e.task_summary ?? e.id}{' '}
                  <span class="muted">
                    {e.review_outcome ?? ''} <Ago at={e.ended_at} />
                  </span>
                </li>
              ))}
            </Listed>
            <h3>People ({m.counterparty_profiles?.length ?? 0})</h3>
            <Listed
              items={m.counterparty_profiles}
              none="No people yet: the seat profiles those it deals with."
            >
              {(m.counterparty_profiles ?? []).map((p, i) => (
                <li key={i}>
                  {p.subject_name ?? p.subject_label}{' '}
                  <span class="muted">{p.interaction_count ?? 0} interactions</span>
                </li>
              ))}
            </Listed>
            <h3>Skills ({m.synthesized_skills?.length ?? 0})</h3>
            <Listed
              items={m.synthesized_skills}
              none="No skills yet: the seat synthesizes them from its turns."
            >
              {(m.synthesized_skills ?? []).map((s) => (
                <li key={s.id}>
                  {s.name} <span class="muted">{s.description}</span>
                </li>
              ))}
            </Listed>
          </div>
        );
      }}
    </Answer>
  );
}
