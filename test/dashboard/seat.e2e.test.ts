/**
 * The seat room against a real `svc serve` with the local fake model: a failed turn's last error is shown,
 * a disabled schedule says so, and pause and resume keep the keyboard focus where it was.
 */
import t from 'tap';
import { sendIssueAssigned } from '../fixtures/codehost-a-delivery.js';
import { startLlmServer } from '../fixtures/llm/llm-server.js';
import { needsChromium, openPage, startBrowser, type WatchedPage } from '../harness/browser.js';
import { startCompanyNode, TOKEN } from './fixtures/company-node.js';
import { localProviders } from '../fixtures/llm/providers.js';

const SECRET = 'codehost-a-dashboard-secret-0123';
const browser = needsChromium.skip === false ? await startBrowser(t) : null;

async function withToken(w: WatchedPage): Promise<void> {
  await w.page.getByLabel('Operator token').fill(TOKEN);
  await w.page.getByRole('button', { name: 'Use token' }).click();
  await w.page.waitForSelector('text=operator token held for this tab');
}

const focused = (w: WatchedPage): Promise<string> =>
  w.page.evaluate<string>(
    'document.activeElement ? document.activeElement.textContent || document.activeElement.tagName : ""',
  );

t.test(
  'the seat room shows a failed turn, a disabled schedule, and keeps the focus',
  needsChromium,
  async (t) => {
    // Every model call is refused: the seat's turn fails and records its last error.
    const llm = await startLlmServer({
      wire: 'openai',
      script: () => ({
        kind: 'status',
        status: 400,
        body: '{"error":{"message":"the fake model refuses this request","type":"invalid_request_error"}}',
      }),
    });
    t.teardown(() => llm.close());
    const company = JSON.stringify({
      name: 'Acme',
      mission: 'Ship useful things',
      timezone: 'UTC',
      providers: localProviders(llm.baseUrl),
      integrations: { codehost_a: { webhook_secret: SECRET } },
      units: [
        {
          name: 'Platform',
          type: 'team',
          roles: [
            {
              name: 'Cy',
              goal: 'Triage issues',
              schedules: [{ name: 'nightly-sweep', cron: '0 3 * * *', task: 'Sweep.', enabled: false }],
            },
          ],
        },
      ],
    });
    const node = await startCompanyNode(t, { company });
    const w = await openPage(browser!);
    const turnEnded = eventFrame(w, 'agent_turn_completed');
    await w.page.goto(`${node.url}/dashboard#/seat/cy`);
    await w.page.waitForSelector('[data-link="live"]');
    const schedules = w.page.locator('section[aria-label="Schedules"]');
    await schedules.locator('text=nightly-sweep').waitFor();
    t.match(await schedules.textContent(), /disabled/, 'a disabled schedule says so');

    const delivery = await sendIssueAssigned(node.url, SECRET, ['cy']);
    t.equal(delivery.status, 200, 'the delivery is accepted');
    const notice = w.page.locator('.last-error');
    await notice.waitFor({ timeout: 60_000 });
    // The phase's provider error comes first, the turn's own a moment later: the room follows the row, so
    // it is compared with what the node says once the turn has ended.
    await turnEnded(60_000);
    const api = (await (await fetch(`${node.url}/agents/cy`)).json()) as {
      last_error: { message: string; phase: string | null } | null;
    };
    t.ok(api.last_error, 'the node recorded a last error');
    await w.page
      .locator('.last-error', { hasText: api.last_error!.message.slice(0, 40) })
      .waitFor({ timeout: 15_000 });
    t.match(await notice.textContent(), api.last_error!.message.slice(0, 40), 'the room shows its message');
    if (api.last_error!.phase) t.match(await notice.textContent(), `phase ${api.last_error!.phase}`);

    await withToken(w);
    t.equal(await focused(w), 'Forget token', 'using the token moves the focus to what replaced the form');
    const pause = w.page.getByRole('button', { name: 'Pause seat' });
    await pause.click();
    await w.page.waitForSelector('text=Paused by');
    await w.page.waitForSelector('[role="status"]:text("Paused.")');
    await w.page.waitForSelector('text=stopped: paused');
    t.match(
      await w.page.locator('p', { hasText: 'stopped: paused' }).textContent(),
      /stopped: paused · unit Platform/,
      'why the seat stopped and its unit read apart',
    );
    t.equal(await focused(w), 'Pause seat', 'the focus stays on the pause button');
    await w.page.getByRole('button', { name: 'Resume seat' }).click();
    await w.page.waitForSelector('[role="status"]:text("Resumed.")');
    t.equal(await focused(w), 'Resume seat', 'and on the resume button');
    await w.page.getByRole('button', { name: 'Forget token' }).click();
    await w.page.getByLabel('Operator token').waitFor();
    t.equal(
      await w.page.evaluate<string>(
        'document.activeElement ? document.activeElement.getAttribute("type") : ""',
      ),
      'password',
      'forgetting the token moves the focus to the token field',
    );
    t.same(await w.violations(), []);
    t.same(w.errors, []);
  },
);

t.test(
  'without a token on a node whose reads are off, rooms say a token is needed',
  needsChromium,
  async (t) => {
    const node = await startCompanyNode(t, { anonymousRead: false });
    const w = await openPage(browser!);
    for (const [hash, label] of [
      ['overview', 'Overview'],
      ['org', 'Org chart'],
      ['seat/iris-chen', 'Seat'],
    ] as const) {
      await w.page.goto(`${node.url}/dashboard#/${hash}`);
      await w.page.waitForSelector(`main[aria-label="${label}"]`);
      await w.page.waitForSelector('text=needs an operator token to read');
      const text = await w.page.textContent('main');
      t.match(text, /This needs an operator token/, `${hash} says a token is needed`);
      t.notMatch(
        text,
        /No company is configured|No seat iris-chen|agent seats0/,
        `${hash} states no false fact`,
      );
    }
  },
);

/**
 * Watches the page's socket for an `event` frame of `type`, from before the page opens it; the returned wait
 * resolves once one has arrived and fails after `timeoutMs`.
 */
function eventFrame(w: WatchedPage, type: string): (timeoutMs: number) => Promise<void> {
  let seen = false;
  let wake = () => {};
  w.page.on('websocket', (ws) =>
    ws.on('framereceived', ({ payload }) => {
      if (typeof payload !== 'string') return;
      const frame = JSON.parse(payload) as { kind?: string; data?: { type?: string } };
      if (frame.kind !== 'event' || frame.data?.type !== type) return;
      seen = true;
      wake();
    }),
  );
  return (timeoutMs) =>
    new Promise((resolve, reject) => {
      if (seen) return resolve();
      const timer = setTimeout(
        () => reject(new Error(`no ${type} event frame within ${timeoutMs} ms`)),
        timeoutMs,
      );
      wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
}
