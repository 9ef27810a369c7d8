// @vitest-environment node
import { afterEach, describe, expect, it } from 'vitest';
import { sitePage } from '../../testing/knowledge-site.ts';
import { type HtmlExtractor, htmlExtractor } from './html-extractor.ts';

const LIMITS = { extractTimeoutMs: 5_000, maxPageNodes: 5_000, extractHeapMb: 128 };
const good = sitePage({ title: 'Returns', body: `<h1>Returns</h1><p>${'Thirty days to return. '.repeat(30)}</p>` });

let extractor: HtmlExtractor | undefined;
afterEach(() => extractor?.close());

describe('the HTML extractor', () => {
  it('reads a page in its worker, as htmlPage does', async () => {
    extractor = htmlExtractor(LIMITS);
    const draft = await extractor.extract(good, 'https://shop.example/returns');
    expect(draft).toMatchObject({ title: 'Returns', language: 'en' });
    expect(typeof draft === 'string' ? draft : draft.sections[0].text).toContain('Thirty days to return.');
  });

  it('refuses a page with too many elements before parsing it', async () => {
    extractor = htmlExtractor(LIMITS);
    const flat = `<html><body>${'<b>x</b>'.repeat(6_000)}</body></html>`;
    expect(await extractor.extract(flat, 'https://shop.example/flat')).toBe('it has 6002 elements, more than 5000');
  });

  it('ends the worker on a page past its time limit, and reads the next page in a new one', async () => {
    // 2,000 nested blocks take Readability over a minute; an ordinary page, some milliseconds.
    extractor = htmlExtractor({ ...LIMITS, extractTimeoutMs: 1_500 });
    const deep = `<html><body>${'<div>'.repeat(2_000)}text${'</div>'.repeat(2_000)}</body></html>`;
    const [slow, next] = [
      extractor.extract(deep, 'https://shop.example/deep'),
      extractor.extract(good, 'https://shop.example/returns'),
    ];
    expect(await slow).toBe('its extraction took more than 1500 ms');
    expect(await next).toMatchObject({ title: 'Returns' });
  });
});
