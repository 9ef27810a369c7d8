import './owner-page.css';
import type { Stats } from '../contract/feedback';
import { STATS_PATH } from '../contract/owner';
import { drawDayChart } from './charts';
import { percentText, type StatsView, statsView } from './stats-view';

/** The token lives for the tab's session only: closing the tab forgets it. */
const TOKEN_KEY = 'owner-token';
const DAYS = 30;

const form = document.getElementById('token-form') as HTMLFormElement;
const field = document.getElementById('owner-token') as HTMLInputElement;
const status = document.getElementById('status') as HTMLElement;
const problem = document.getElementById('problem') as HTMLElement;
const output = document.getElementById('stats') as HTMLElement;

/** What each refusal means to the owner; the server's own message is for a developer. */
const REFUSALS: Record<number, string> = {
  401: 'The owner token is wrong (401). Check OWNER_TOKEN on the server.',
  404: 'This server has no statistics (404): OWNER_TOKEN is not set.',
  429: 'Too many wrong tokens (429): wait a minute, then try again.',
};

let shown: Stats | undefined;

function element<K extends keyof HTMLElementTagNameMap>(tag: K, text?: string): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (text !== undefined) node.textContent = text;
  return node;
}

/** "1 conversation", "3 conversations". */
function count(amount: number, noun: string): string {
  return `${amount} ${noun}${amount === 1 ? '' : 's'}`;
}

function section(title: string, ...children: Node[]): HTMLElement {
  const node = element('section');
  const id = `h-${title.toLowerCase().replace(/[^a-z]+/g, '-')}`;
  const heading = element('h2', title);
  heading.id = id;
  node.setAttribute('aria-labelledby', id);
  node.append(heading, ...children);
  return node;
}

function table(headings: string[], rows: (string | Node)[][]): HTMLTableElement {
  const node = element('table');
  const head = node.createTHead().insertRow();
  for (const text of headings) head.append(Object.assign(element('th', text), { scope: 'col' }));
  const body = node.createTBody();
  for (const row of rows) {
    const line = body.insertRow();
    for (const cell of row) line.insertCell().append(cell);
  }
  return node;
}

/** A chart with its caption; the canvas is hidden from assistive technology, which reads `summary` instead. */
function chartFigure(caption: string, summary: string): { figure: HTMLElement; canvasBox: HTMLElement } {
  const figure = element('figure');
  const canvasBox = element('div');
  canvasBox.setAttribute('aria-hidden', 'true');
  figure.append(canvasBox, element('figcaption', `${caption}. ${summary}`));
  return { figure, canvasBox };
}

/** Forms offered, messages sent, delivered and given up, by day: the days that had any, and the span's total. */
function handoffTable(view: StatsView): HTMLElement {
  if (view.handoffDays.length === 0) return element('p', 'No visitor was offered a person yet.');
  const row = (label: string, n: StatsView['handoffs']) => [
    label,
    String(n.offered),
    String(n.sent),
    String(n.delivered),
    String(n.failed),
  ];
  return table(
    ['Day', 'Form opened', 'Sent by visitors', 'Delivered', 'Undeliverable'],
    [...view.handoffDays.map((day) => row(day.date, day)), row('All', view.handoffs)],
  );
}

function render(view: StatsView): void {
  const total = view.messages.reduce((sum, count) => sum + count, 0);
  const busiest = Math.max(0, ...view.messages);
  const messages = chartFigure(
    `Messages per day, the last ${DAYS} days`,
    `${total} in all; the busiest day had ${busiest}.`,
  );
  const uncoveredDays = view.uncovered.filter((value) => value !== null);
  const uncovered = chartFigure(
    'Share of replies the site’s pages did not cover, by day',
    uncoveredDays.length === 0
      ? 'No replies yet.'
      : `Highest ${Math.max(...uncoveredDays)}%, lowest ${Math.min(...uncoveredDays)}%.`,
  );
  const pages =
    view.downSources.length === 0
      ? element('p', 'No page has a Not helpful yet.')
      : table(
          ['Page', 'Not helpful'],
          view.downSources.map(({ address, down }) => {
            const link = element('a', address);
            link.href = address;
            link.rel = 'noopener noreferrer';
            return [link, String(down)];
          }),
        );
  output.replaceChildren(
    section(
      'Messages',
      element('p', `${count(view.conversations, 'conversation')} and ${count(total, 'message')} in all.`),
      messages.figure,
    ),
    section(
      'Answered from the site’s pages',
      element('p', `${percentText(view.answeredFromPages)} of replies were given passages from the site’s pages.`),
    ),
    section(
      'Helpful and Not helpful',
      table(
        ['Vote', 'Replies'],
        [
          ['Helpful', String(view.up)],
          ['Not helpful', String(view.down)],
        ],
      ),
      table(
        ['Reason given with Not helpful', 'Replies'],
        view.reasons.map(({ name, count }) => [name, String(count)]),
      ),
    ),
    section('Pages with the most Not helpful', pages),
    section('Questions the pages did not cover', uncovered.figure),
    section('Messages to a person', handoffTable(view)),
  );
  drawDayChart(messages.canvasBox, { times: view.times, values: view.messages, label: 'Messages', kind: 'bars' });
  drawDayChart(uncovered.canvasBox, {
    times: view.times,
    values: view.uncovered,
    label: 'Not covered',
    kind: 'line',
    unit: '%',
  });
}

async function show(token: string): Promise<void> {
  problem.textContent = '';
  status.textContent = 'Loading…';
  let response: Response;
  try {
    response = await fetch(`${import.meta.env.BASE_URL}${STATS_PATH.slice(1)}?days=${DAYS}`, {
      headers: { Authorization: `Bearer ${token}` },
      cache: 'no-store',
    });
  } catch {
    status.textContent = '';
    problem.textContent = 'The server did not answer. Try again.';
    return;
  }
  status.textContent = '';
  if (!response.ok) {
    sessionStorage.removeItem(TOKEN_KEY);
    shown = undefined;
    output.replaceChildren();
    problem.textContent = REFUSALS[response.status] ?? `The server answered ${response.status}. Try again.`;
    field.focus();
    return;
  }
  sessionStorage.setItem(TOKEN_KEY, token);
  shown = (await response.json()) as Stats;
  status.textContent = `The last ${DAYS} days, ${shown.from} to ${shown.to} (UTC).`;
  render(statsView(shown));
}

form.addEventListener('submit', (event) => {
  event.preventDefault();
  void show(field.value.trim());
});

// A canvas keeps the colours it was drawn in: a change of scheme draws the charts again.
matchMedia('(prefers-color-scheme: dark)').addEventListener('change', () => {
  if (shown) render(statsView(shown));
});

const kept = sessionStorage.getItem(TOKEN_KEY);
if (kept) {
  field.value = kept;
  void show(kept);
}
