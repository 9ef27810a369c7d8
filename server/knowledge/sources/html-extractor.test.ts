import { readdirSync, readFileSync } from 'node:fs';
import { getPriority } from 'node:os';
import { afterEach, describe, expect, it } from 'vitest';
import { sitePage } from '../../../testing/knowledge-site.ts';
import { type HtmlExtractor, htmlExtractor } from './html-extractor.ts';

const LIMITS = { extractTimeoutMs: 5_000, maxPageNodes: 5_000, extractHeapMb: 128, maxPageTerms: 1_000 };
const HTML = 'text/html; charset=utf-8';
const bytesOf = (text: string) => new TextEncoder().encode(text);
const good = sitePage({ title: 'Returns', body: `<h1>Returns</h1><p>${'Thirty days to return. '.repeat(30)}</p>` });

let extractor: HtmlExtractor | undefined;
afterEach(() => extractor?.close());

describe('the HTML extractor', () => {
  it('reads a page in its worker, as htmlPage does', async () => {
    extractor = htmlExtractor(LIMITS);
    const draft = await extractor.extract(bytesOf(good), HTML, 'https://shop.example/returns', 'en');
    expect(draft).toMatchObject({ title: 'Returns', language: 'en' });
    expect(typeof draft === 'string' ? draft : draft.sections[0].text).toContain('Thirty days to return.');
  });

  // Linux gives each thread its own nice value; a test run already at the lowest priority cannot tell the worker apart.
  it.runIf(process.platform === 'linux' && getPriority() < 19)(
    'runs its worker at the lowest priority, the thread that serves chat at its own',
    async () => {
      extractor = htmlExtractor(LIMITS);
      await extractor.extract(bytesOf(good), HTML, 'https://shop.example/returns', 'en');
      // Each thread's nice value, the 19th field of its stat line (after the name in parentheses).
      const nice = (task: string) =>
        Number(readFileSync(`/proc/self/task/${task}/stat`, 'utf8').split(') ')[1].split(' ')[16]);
      const tasks = readdirSync('/proc/self/task');
      expect(nice(String(process.pid))).toBe(getPriority());
      expect(tasks.filter((task) => nice(task) === 19)).toHaveLength(1);
    },
  );

  it('refuses a page with too many elements before parsing it', async () => {
    extractor = htmlExtractor(LIMITS);
    const flat = `<html><body>${'<b>x</b>'.repeat(6_000)}</body></html>`;
    expect(await extractor.extract(bytesOf(flat), HTML, 'https://shop.example/flat', 'en')).toBe(
      'it has 6002 elements, more than 5000',
    );
  });

  it('refuses bytes that are not text in their charset, or hold control characters, in its worker', async () => {
    extractor = htmlExtractor(LIMITS);
    const refused = 'it is not text in its charset (or holds control characters)';
    expect(await extractor.extract(Uint8Array.of(0x3c, 0xff, 0xfe, 0x3e), HTML, 'https://shop.example/a', 'en')).toBe(
      refused,
    );
    expect(await extractor.extract(bytesOf(`${good}\u0001`), HTML, 'https://shop.example/b', 'en')).toBe(refused);
    // Latin-1 bytes are text in the charset the page names.
    const latin = Uint8Array.from(`<title>Caf\u00e9</title><p>${'Open daily. '.repeat(30)}</p>`, (c) =>
      c.charCodeAt(0),
    );
    expect(
      await extractor.extract(latin, 'text/html; charset=iso-8859-1', 'https://shop.example/c', 'en'),
    ).toMatchObject({
      title: 'Café',
    });
  });

  it('refuses a page with more distinct terms than a page may bring, counted in its own language', async () => {
    extractor = htmlExtractor(LIMITS);
    const words = Array.from({ length: 1_001 }, (_, n) => `w${n.toString(36)}x`).join(' ');
    const unique = bytesOf(sitePage({ title: 'Words', body: `<p>${words}</p>` }));
    expect(await extractor.extract(unique, HTML, 'https://shop.example/w', 'en')).toBe(
      'it has more than 1000 distinct terms',
    );
    // The same words repeated bring one term each: a long ordinary page is read.
    const long = bytesOf(sitePage({ title: 'Long', body: `<p>${'Thirty days to return. '.repeat(5_000)}</p>` }));
    expect(await extractor.extract(long, HTML, 'https://shop.example/l', 'en')).toMatchObject({ title: 'Long' });
  });

  it('ends the worker on a page past its time limit, and reads the next page in a new one', async () => {
    // 2,000 nested blocks take Readability over a minute; an ordinary page, some milliseconds.
    extractor = htmlExtractor({ ...LIMITS, extractTimeoutMs: 1_500 });
    const deep = `<html><body>${'<div>'.repeat(2_000)}text${'</div>'.repeat(2_000)}</body></html>`;
    const [slow, next] = [
      extractor.extract(bytesOf(deep), HTML, 'https://shop.example/deep', 'en'),
      extractor.extract(bytesOf(good), HTML, 'https://shop.example/returns', 'en'),
    ];
    expect(await slow).toBe('its extraction took more than 1500 ms');
    expect(await next).toMatchObject({ title: 'Returns' });
  });
});
