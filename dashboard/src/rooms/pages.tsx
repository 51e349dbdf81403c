/**
 * Pages: the native knowledge base. Containers (`containers`), one container's pages or a search's hits
 * (`pages`, with `container=` or `q=` from the hash), and one page (`page`, at `#/pages/{id}`) with its
 * breadcrumb, body, children and comments. Read-only; bodies are shown through the safe Markdown subset.
 */
import { useEffect, useState } from 'preact/hooks';
import { useQuestion } from '../live/context.js';
import { href, navigate, type Route } from '../router.js';
import { time } from '../ui/format.js';
import { Markdown } from '../ui/markdown.js';
import { Answer, Badge, Card, Table } from '../ui/parts.js';
import { useNative } from './board.js';
import { Ago } from '../ui/ago.js';

interface Caller {
  kind: string;
  id: string;
  name: string | null;
}
interface ContainerRow {
  key: string;
  name: string;
  /** Null for a container the chart no longer declares. */
  kind: string | null;
  unit: string | null;
  declared: boolean;
  pages: number;
}
interface PageRow {
  id: string;
  container: string;
  title: string;
  updated_at: string;
  updated_by: Caller;
  children: number;
  comments: number;
  snippet?: string;
  /** In a search: found by every word, or (with embeddings on, after those) by meaning. */
  match?: 'words' | 'meaning';
}
interface PageDetail {
  id: string;
  container: string;
  title: string;
  body: string;
  version: number;
  updated_at: string;
  updated_by: Caller;
  breadcrumb: Array<{ id: string; title: string }>;
  children: Array<{ id: string; title: string }>;
  comments: Array<{ id: string; body: string; at: string; by: Caller }>;
}

const REASK_MS = 30_000;
const who = (c: Caller): string => c.name ?? c.id;

/** Pages raise no stream event: the room reads again on a slow beat. */
function useBeat(): number {
  const [beat, setBeat] = useState(0);
  useEffect(() => {
    const timer = window.setInterval(() => setBeat((b) => b + 1), REASK_MS);
    return () => window.clearInterval(timer);
  }, []);
  return beat;
}

function Search(props: { q: string }) {
  const [text, setText] = useState(props.q);
  useEffect(() => setText(props.q), [props.q]);
  return (
    <form
      class="filters"
      role="search"
      aria-label="Page search"
      onSubmit={(e) => {
        e.preventDefault();
        const words = text.trim();
        navigate('pages', [], new URLSearchParams(words === '' ? {} : { q: words }));
      }}
    >
      <label>
        Search pages
        <input type="search" value={text} onInput={(e) => setText(e.currentTarget.value)} />
      </label>
      <button type="submit">Search</button>
    </form>
  );
}

function PageList(props: { params: Record<string, string>; caption: string; beat: number }) {
  const asked = useQuestion<{ pages: PageRow[]; total: number | null }>(
    'pages',
    { ...props.params, limit: 100 },
    props.beat,
  );
  return (
    <Answer asked={asked} what="pages">
      {(d) => (
        <Table
          caption={`${props.caption}${d.total !== null && d.total > d.pages.length ? ` (first ${d.pages.length} of ${d.total})` : ''}`}
          rows={d.pages}
          rowKey={(p) => p.id}
          many="pages"
          empty={props.params['q'] ? 'No page matches.' : 'No page here yet.'}
          columns={[
            {
              label: 'title',
              cell: (p) => (
                <>
                  <a href={href('pages', p.id)}>{p.title}</a>
                  {p.match === 'meaning' ? (
                    <>
                      {' '}
                      <Badge value="by meaning" title="close in meaning to the search, without every word" />
                    </>
                  ) : null}
                  {p.snippet ? <div class="muted snippet">{p.snippet}</div> : null}
                </>
              ),
            },
            { label: 'container', cell: (p) => p.container },
            { label: 'children', cell: (p) => p.children, numeric: true },
            { label: 'comments', cell: (p) => p.comments, numeric: true },
            {
              label: 'updated',
              cell: (p) => (
                <span title={time(p.updated_at)}>
                  <Ago at={p.updated_at} />
                </span>
              ),
            },
            { label: 'by', cell: (p) => who(p.updated_by) },
          ]}
        />
      )}
    </Answer>
  );
}

function OnePage(props: { id: string; beat: number }) {
  const asked = useQuestion<PageDetail>('page', { id: props.id }, props.beat);
  return (
    <Answer asked={asked} what="page">
      {(p) => (
        <div class="stack">
          <nav aria-label="Breadcrumb" class="breadcrumb">
            <a href={href('pages')}>Pages</a> /{' '}
            <a href={`${href('pages')}?container=${encodeURIComponent(p.container)}`}>{p.container}</a>
            {p.breadcrumb.map((b) => (
              <span key={b.id}>
                {' / '}
                <a href={href('pages', b.id)}>{b.title}</a>
              </span>
            ))}{' '}
            / <span aria-current="page">{p.title}</span>
          </nav>
          <Card title={p.title} wide>
            <p class="muted">
              Version {p.version}, updated{' '}
              <span title={time(p.updated_at)}>
                <Ago at={p.updated_at} />
              </span>{' '}
              by {who(p.updated_by)}
            </p>
            <article class="page-body" aria-label="Page body">
              {p.body.trim() === '' ? <p class="muted">This page is empty.</p> : <Markdown text={p.body} />}
            </article>
          </Card>
          <Card title="Children">
            {p.children.length === 0 ? (
              <p class="muted">No page below this one.</p>
            ) : (
              <ul>
                {p.children.map((c) => (
                  <li key={c.id}>
                    <a href={href('pages', c.id)}>{c.title}</a>
                  </li>
                ))}
              </ul>
            )}
          </Card>
          <Card title="Comments">
            {p.comments.length === 0 ? (
              <p class="muted">No comment yet.</p>
            ) : (
              <ol class="thread" aria-label="Comments, oldest first">
                {p.comments.map((c) => (
                  <li key={c.id}>
                    <div class="muted">
                      {who(c.by)} ·{' '}
                      <time dateTime={c.at}>
                        <Ago at={c.at} />
                      </time>
                    </div>
                    <Markdown text={c.body} />
                  </li>
                ))}
              </ol>
            )}
          </Card>
        </div>
      )}
    </Answer>
  );
}

export function PagesRoom(props: { route: Route }) {
  const beat = useBeat();
  const id = props.route.rest.join('/');
  const q = props.route.query.get('q') ?? '';
  const container = props.route.query.get('container') ?? '';
  const { native, notice } = useNative('knowledge');
  const containers = useQuestion<{ containers: ContainerRow[] }>(native ? 'containers' : null, {}, beat);
  if (!native) return notice;
  return (
    <div class="stack">
      <Search q={q} />
      {id !== '' ? (
        <OnePage id={id} beat={beat} />
      ) : q !== '' ? (
        <Card title={`Search: ${q}`} wide>
          <PageList params={{ q }} caption="Best matches first" beat={beat} />
        </Card>
      ) : (
        <>
          <Card title="Containers" wide>
            <Answer asked={containers} what="containers">
              {(d) => (
                <Table
                  caption="Containers the org chart declares"
                  rows={d.containers}
                  rowKey={(c) => c.key}
                  empty="The org chart declares no container (units[].integrations.wiki.space, knowledge.wiki_spaces)."
                  columns={[
                    {
                      label: 'container',
                      cell: (c) => (
                        <a
                          href={`${href('pages')}?container=${encodeURIComponent(c.key)}`}
                          aria-current={c.key === container ? 'page' : undefined}
                        >
                          {c.key}
                        </a>
                      ),
                    },
                    { label: 'name', cell: (c) => c.name },
                    { label: 'kind', cell: (c) => c.kind ?? '—' },
                    { label: 'declared', cell: (c) => (c.declared ? 'yes' : <Badge value="undeclared" />) },
                    { label: 'pages', cell: (c) => c.pages, numeric: true },
                  ]}
                />
              )}
            </Answer>
          </Card>
          {container !== '' ? (
            <Card title={`Pages in ${container}`} wide>
              <PageList params={{ container }} caption="In title order" beat={beat} />
            </Card>
          ) : null}
        </>
      )}
    </div>
  );
}
