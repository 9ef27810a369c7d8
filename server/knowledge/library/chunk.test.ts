import { describe, expect, it } from 'vitest';
import { htmlPage } from '../sources/html-page.ts';
import { markdownPage } from '../sources/markdown-page.ts';
import type { Page } from '../sources/page.ts';
import { chunkPage, estimateTokens, MAX_PASSAGE_TOKENS } from './chunk.ts';
import { formatMaterial } from './material.ts';
import { RETRIEVAL_LIMITS } from './retrieval-limits.ts';

const page = (sections: Page['sections']): Page => ({
  url: 'https://example.com/p',
  title: 'P',
  language: 'en',
  sections,
});

describe('a Markdown page along its headings', () => {
  it('keeps the heading path with each section, treats # in a code fence as code and drops badges and link targets', () => {
    const { sections } = markdownPage(
      [
        '# Garden [![build](https://ci/badge.svg)](https://ci)',
        'Tools for the [garden](https://example.com/garden).',
        '## Spades',
        '```sh',
        '# not a heading',
        '```',
        '### Blades',
        'Steel blades.',
        '## Rakes',
        'Wooden rakes.',
      ].join('\n'),
    );
    expect(sections).toEqual([
      { headings: ['Garden'], text: 'Tools for the garden.', id: 'garden' },
      { headings: ['Garden', 'Spades'], text: '```sh\n# not a heading\n```', id: 'spades' },
      { headings: ['Garden', 'Spades', 'Blades'], text: 'Steel blades.', id: 'blades' },
      { headings: ['Garden', 'Rakes'], text: 'Wooden rakes.', id: 'rakes' },
    ]);
  });
});

describe('an HTML page', () => {
  it('keeps the main content along its headings, not the navigation, header or footer', () => {
    const filler = 'The blade is forged from one piece of steel and sharpened by hand before it leaves the workshop. ';
    const html = `<html><head><title>Spades</title></head><body>
      <header>Site header: Home, Shop, Cart</header><nav><a href="/">Navigation link</a></nav>
      <main><h1>Spades</h1><p>${filler.repeat(6)}</p><h2>Care</h2><p>Oil the blade after use. ${filler.repeat(4)}</p></main>
      <footer>Copyright footer</footer><script>var tracking = 1;</script></body></html>`;
    const { sections } = htmlPage(html, 'https://example.com/spades');
    const text = sections.map((section) => section.text).join(' ');
    expect(text).toContain('Oil the blade after use.');
    for (const chrome of ['Site header', 'Navigation link', 'Copyright footer', 'tracking'])
      expect(text).not.toContain(chrome);
    expect(sections.find((section) => section.text.startsWith('Oil'))?.headings.at(-1)).toBe('Care');
  });
});

describe('chunking', () => {
  it('cuts a section into passages of at most a few hundred words, each with the page, headings and language', () => {
    const paragraph = (n: number) => `Paragraph ${n} ${'about garden tools and their care '.repeat(30)}`.trim();
    const passages = chunkPage(
      page([{ headings: ['Tools', 'Care'], text: [1, 2, 3, 4, 5].map(paragraph).join('\n\n') }]),
    );
    expect(passages.length).toBeGreaterThan(1);
    for (const passage of passages) {
      expect(passage.tokens).toBeLessThanOrEqual(MAX_PASSAGE_TOKENS);
      expect(passage).toMatchObject({
        url: 'https://example.com/p',
        title: 'P',
        headings: ['Tools', 'Care'],
        language: 'en',
      });
    }
    expect(passages.map((passage) => passage.text).join('\n\n')).toBe([1, 2, 3, 4, 5].map(paragraph).join('\n\n'));
  });

  it('cuts a paragraph longer than a passage between words, and Japanese text between characters', () => {
    const long = 'word '.repeat(2000).trim();
    const english = chunkPage(page([{ headings: [], text: long }]));
    expect(
      english.every((passage) => passage.tokens <= MAX_PASSAGE_TOKENS && /^word( word)*$/.test(passage.text)),
    ).toBe(true);
    const japanese = chunkPage(page([{ headings: ['返品'], text: '返品は三十日以内にできます。'.repeat(100) }]));
    expect(japanese.length).toBeGreaterThan(1);
    expect(japanese.every((passage) => passage.tokens <= MAX_PASSAGE_TOKENS)).toBe(true);
    expect(estimateTokens('返品')).toBe(2);
  });

  it('caps a heading of 1.8 MB, and its slug, and counts them in the budget: the material stays small', () => {
    const heading = 'Returns '.repeat(230_000).trim();
    const markdown = markdownPage(`# ${heading}\n\nYou can return any item within thirty days.\n`);
    const html = htmlPage(
      `<title>R</title><h2 id="${'a'.repeat(300)}">${heading}</h2><p>Send it back.</p>`,
      'https://example.com/x',
    );
    for (const draft of [markdown, html]) {
      const passages = chunkPage({ ...page(draft.sections), url: 'https://example.com/returns' });
      const material = formatMaterial(passages, (text) => text);
      const capped = passages.at(-1);
      expect(passages.every((passage) => passage.url === 'https://example.com/returns')).toBe(true);
      expect(capped?.headings[0]).toHaveLength(200);
      expect(capped?.tokens).toBeGreaterThan(estimateTokens(`${capped?.headings[0]}${capped?.url}`));
      expect(material.text.length).toBeLessThan(RETRIEVAL_LIMITS.maxTokens * 4);
    }
  });
});

describe('titles and headings', () => {
  // C1 controls (U+0080 to U+009F) are valid text, so they pass the page check; a terminal obeys them (U+009B starts a
  // control sequence) when the report prints a title. ESC, a C0 control, passes a folder's check (only NUL fails it).
  const controls = 'Opening\u0085\u009b2J\u0090 hours\u001b[31m\u0080';

  it('hold no control character, C0 or C1, from a Markdown file', () => {
    const fronted = markdownPage(`---\ntitle: ${controls}\n---\n# ${controls}\n\nText.\n`);
    const headed = markdownPage(`# ${controls}\n\n## Days\u009d\u0081 off\n\nText.\n`);
    expect(fronted.title).toBe('Opening 2J hours [31m');
    expect(headed.title).toBe('Opening 2J hours [31m');
    expect(fronted.sections[0].headings).toEqual(['Opening 2J hours [31m']);
    expect(headed.sections[0].headings).toEqual(['Opening 2J hours [31m', 'Days off']);
  });

  it('hold no control character, C0 or C1, from an HTML page', () => {
    const filler = 'The shop opens at nine and closes at six, every day but Sunday, the holidays included. ';
    const html = `<html><head><title>${controls}</title></head><body><main><h1>Hours</h1><p>${filler.repeat(6)}</p>
      <h2>${controls}</h2><p>${filler.repeat(4)}</p></main></body></html>`;
    const draft = htmlPage(html, 'https://www.example.com/hours');
    expect(draft.title).toBe('Opening 2J hours [31m');
    expect(draft.sections.flatMap((section) => section.headings)).toContain('Opening 2J hours [31m');
  });
});
