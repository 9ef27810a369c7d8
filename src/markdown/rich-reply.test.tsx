import { ChakraProvider } from '@chakra-ui/react';
import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { fromMarkdown } from 'mdast-util-from-markdown';
import { describe, expect, it, vi } from 'vitest';
import { getSystem } from '../system';
import { CopyButton } from './copy-button';
import { safeHref } from './render-markdown';
import { PARTIAL_PARSE_LIMIT, RichReply } from './rich-reply';

// The real parser, watched: which sources it is given shows what is parsed again as a reply grows.
vi.mock('mdast-util-from-markdown', async (importOriginal) => {
  const original = await importOriginal<typeof import('mdast-util-from-markdown')>();
  return { fromMarkdown: vi.fn(original.fromMarkdown) };
});

function renderReply(text: string, partial = false) {
  const view = render(
    <ChakraProvider value={getSystem()}>
      <RichReply text={text} partial={partial} />
    </ChakraProvider>,
  );
  return {
    ...view,
    grow: (longer: string) =>
      view.rerender(
        <ChakraProvider value={getSystem()}>
          <RichReply text={longer} partial />
        </ChakraProvider>,
      ),
  };
}

describe('RichReply', () => {
  it('renders CommonMark and GitHub tables, strikethrough and task lists', () => {
    const { container } = renderReply(
      [
        '# Title',
        'Some **bold**, *italic*, ~~old~~ and `code`.',
        '- one\n- two\n  1. nested',
        '3. three\n4. four',
        '- [x] done\n- [ ] to do',
        '| Left | Right |\n| :--- | ----: |\n| a | 1 |',
        '> quoted',
        '```ts\nconst  spaced = 1;\n```',
        '---',
      ].join('\n\n'),
    );
    expect(container.querySelector('strong')?.textContent).toBe('Title');
    expect(container.querySelector('p strong')?.textContent).toBe('Title');
    expect(screen.getByText('bold').tagName).toBe('STRONG');
    expect(screen.getByText('italic').tagName).toBe('EM');
    expect(screen.getByText('old').tagName).toBe('DEL');
    expect(screen.getByText('code').tagName).toBe('CODE');
    expect(Array.from(container.querySelectorAll('ul > li'), (li) => li.firstChild?.textContent)).toEqual([
      'one',
      'two',
      '☑',
      '☐',
    ]);
    expect(container.querySelector('ul ol')?.textContent).toBe('nested');
    expect(container.querySelector('ol[start="3"]')?.textContent).toBe('threefour');
    expect(screen.getByRole('img', { name: 'Done' })).toHaveTextContent('☑');
    expect(screen.getByRole('table')).toHaveTextContent('LeftRighta1');
    expect(screen.getByRole('cell', { name: '1' })).toHaveAttribute('data-align', 'right');
    expect(container.querySelector('blockquote')?.textContent).toBe('quoted');
    expect(container.querySelector('pre code')?.textContent).toBe('const  spaced = 1;');
    expect(screen.getByRole('button', { name: 'Copy code' })).toBeInTheDocument();
    expect(container.querySelector('hr')).not.toBeNull();
    expect(container.querySelector('input, img, script, style, iframe, form, [style]')).toBeNull();
  });

  it('links only to http, https and mailto, in a new tab, and shows everything else as text', () => {
    const { container } = renderReply(
      [
        '[web](https://example.com/a?b=c) [mail](mailto:me@example.com) <http://example.org> www.example.net',
        '[js](javascript:alert(1)) [JS](JaVaScRiPt:alert(1)) [enc](&#106;avascript:alert(1)) [vb](vbscript:x)',
        '[data](data:text/html;base64,PHNjcmlwdD4=) [rel](/relative) [ref][r] ![track](https://t.example/p.gif?u=1)',
        '<a href="https://example.com" onclick="alert(1)">raw</a>',
        '',
        '[r]: javascript:alert(1)',
      ].join('\n'),
    );
    const links = Array.from(container.querySelectorAll('a'), (a) => [a.textContent, a.getAttribute('href')]);
    expect(links).toEqual([
      ['web', 'https://example.com/a?b=c'],
      ['mail', 'mailto:me@example.com'],
      ['http://example.org', 'http://example.org/'],
      ['www.example.net', 'http://www.example.net/'],
      ['https://t.example/p.gif?u=1', 'https://t.example/p.gif?u=1'],
    ]);
    for (const link of container.querySelectorAll('a')) {
      expect(link).toHaveAttribute('target', '_blank');
      expect(link).toHaveAttribute('rel', 'noopener noreferrer nofollow');
    }
    expect(container.textContent).toContain('js JS enc vb');
    expect(container.textContent).toContain('[ref][r] Image: track (https://t.example/p.gif?u=1)');
    expect(container.textContent).toContain('<a href="https://example.com" onclick="alert(1)">raw</a>');
    expect(container.textContent).toContain('[r]: javascript:alert(1)');
    expect(container.querySelector('img, [onclick]')).toBeNull();
  });

  it('shows a link whose text names another host, or whose URL has userinfo, as text and its destination', () => {
    const { container } = renderReply(
      [
        '[https://bank.example](https://evil.example) [bank.example](https://evil.example/a)',
        '[www.bank.example/login](https://evil.example) [**bank**.example](https://evil.example)',
        '[bank](https://user:pass@evil.example/) http://good.example\\@evil.example https://user:pass@host.example/',
        '[BANK.example.](https://www.bank.example/) [https://bücher.example](https://xn--bcher-kva.example/x)',
      ].join('\n'),
    );
    expect(Array.from(container.querySelectorAll('a'), (a) => [a.textContent, a.getAttribute('href')])).toEqual([
      ['BANK.example.', 'https://www.bank.example/'],
      ['https://bücher.example', 'https://xn--bcher-kva.example/x'],
    ]);
    expect(container.textContent).toBe(
      [
        'https://bank.example (https://evil.example/) bank.example (https://evil.example/a)',
        'www.bank.example/login (https://evil.example/) bank.example (https://evil.example/)',
        'bank (https://user:pass@evil.example/) http://good.example\\@evil.example https://user:pass@host.example/',
        'BANK.example. https://bücher.example',
      ].join('\n'),
    );
  });

  it('never links an image address with userinfo', () => {
    const { container } = renderReply('![pixel](https://user@tracker.example/p.gif)');
    expect(container.querySelector('a')).toBeNull();
    expect(container.textContent).toBe('Image: pixel (https://user@tracker.example/p.gif)');
  });

  it('checks a URL as the browser would read it', () => {
    expect(safeHref('https://example.com')).toBe('https://example.com/');
    expect(safeHref(' \tjava\nscript:alert(1)')).toBeUndefined();
    expect(safeHref('\u0000javascript:alert(1)')).toBeUndefined();
    expect(safeHref('HTTPS://EXAMPLE.COM')).toBe('https://example.com/');
    expect(safeHref('java%73cript:alert(1)')).toBeUndefined();
    expect(safeHref('//example.com')).toBeUndefined();
  });

  it('while streaming, parses only the block being written and shows no raw markers', () => {
    const parsed = vi.mocked(fromMarkdown);
    const first = 'First block with **bold** text.\n\n';
    const view = renderReply('First', true);
    view.grow(first);
    view.grow(`${first}Then **str`);
    expect(view.container.querySelector('p:last-child strong')?.textContent).toBe('str');
    expect(view.container.textContent).not.toContain('*');
    view.grow(`${first}Then **strong** and [a link](https://exa`);
    expect(view.container.querySelector('a')).toBeNull();
    expect(view.container.textContent).toContain('and a link');
    view.grow(`${first}Then **strong** and [a link](https://example.com)`);
    expect(view.container.querySelector('a')).toHaveAttribute('href', 'https://example.com/');
    view.grow(`${first}Bare https://example.co`);
    expect(view.container.querySelector('a'), 'a bare URL still arriving').toBeNull();
    parsed.mockClear();
    view.grow(`${first}Bare https://example.com and more`);
    expect(view.container.querySelector('a')).toHaveAttribute('href', 'https://example.com/');
    // The finished first block was not parsed again.
    expect(parsed.mock.calls.map(([source]) => source)).toEqual(['Bare https://example.com and more']);
  });

  it('shows a block still being written past the parse limit as plain text, and parses it once complete', () => {
    const parsed = vi.mocked(fromMarkdown);
    const line = 'const value = compute(a, b); // **not bold**\n';
    const code = line.repeat(Math.ceil(PARTIAL_PARSE_LIMIT / line.length) + 100);
    const view = renderReply('Intro.\n\n```ts\n', true);
    parsed.mockClear();
    for (let end = 0; end < code.length; end += 1000) view.grow(`Intro.\n\n\`\`\`ts\n${code.slice(0, end)}`);
    // Parsed for the pieces under the limit only.
    const parsedLengths = parsed.mock.calls.map(([source]) => String(source).length);
    expect(Math.max(...parsedLengths)).toBeLessThanOrEqual(PARTIAL_PARSE_LIMIT);
    expect(view.container.querySelector('[data-source]')?.textContent).toMatch(/^```ts\nconst value/);
    view.rerender(
      <ChakraProvider value={getSystem()}>
        <RichReply text={`Intro.\n\n\`\`\`ts\n${code}\`\`\``} />
      </ChakraProvider>,
    );
    expect(view.container.querySelector('pre code')?.textContent).toBe(code.slice(0, -1));
    expect(view.container.querySelector('[data-source]')).toBeNull();
  });

  it('shows an open code fence as code while it streams', () => {
    const view = renderReply('```py\nprint("hi")\n', true);
    expect(view.container.querySelector('pre code')?.textContent).toBe('print("hi")');
    expect(view.container.textContent).not.toContain('```');
  });
});

describe('CopyButton', () => {
  it('copies its text and says "Copied" in a status region', async () => {
    const user = userEvent.setup();
    render(
      <ChakraProvider value={getSystem()}>
        <CopyButton text={'**Markdown** source'} />
      </ChakraProvider>,
    );
    expect(screen.getByRole('status')).toHaveTextContent('');
    await user.click(screen.getByRole('button', { name: 'Copy reply' }));
    expect(await navigator.clipboard.readText()).toBe('**Markdown** source');
    expect(await screen.findByRole('status')).toHaveTextContent('Copied');
  });
});

describe('RichReply against hostile nesting', () => {
  /** How deep `selector` elements nest in `container`. */
  const nesting = (container: HTMLElement, selector: string) => {
    let deepest = 0;
    for (const element of container.querySelectorAll(selector)) {
      let depth = 0;
      for (let at: Element | null = element; at && at !== container; at = at.parentElement) {
        if (at.matches(selector)) depth += 1;
      }
      deepest = Math.max(deepest, depth);
    }
    return deepest;
  };

  it.each([
    ['2,000 quotes', `${'>'.repeat(2000)} deep`, 'blockquote'],
    ['20,000 quotes (the parser alone overflows its stack)', `${'>'.repeat(20_000)} deep`, 'blockquote'],
    ['800 lists', `${'- '.repeat(800)}deep`, 'ul'],
    ['800 ordered lists', `${'1. '.repeat(800)}deep`, 'ol'],
    ['quotes and lists', `${'> - '.repeat(800)}deep`, 'blockquote, ul'],
    [
      'lists nested by indentation too',
      Array.from({ length: 60 }, (_, i) => `${'  '.repeat(i)}- ${'- '.repeat(10)}deep`).join('\n'),
      'ul',
    ],
    ['emphasis', `${'*a '.repeat(200)}deep${' a*'.repeat(200)}`, 'em'],
  ])('limits %s to 20 levels, the rest shown as text', (_name, source, selector) => {
    const { container } = renderReply(source);
    const depth = nesting(container, selector);
    // Lists nested by indentation reach the limit in fewer lines; each line's markers are limited on their own.
    expect(depth).toBeLessThanOrEqual(20);
    expect(depth).toBeGreaterThanOrEqual(selector === 'ul' && source.includes('\n') ? 15 : 20);
    expect(container.textContent).toContain('deep');
  });

  it.each([
    ['20,000 closing stars', 'a* '.repeat(20_000)],
    ['2,000 nested emphases', `${'*a '.repeat(2000)}x${' a*'.repeat(2000)}`],
    ['20,000 link openings', '[a]('.repeat(20_000)],
    ['20,000 escapes', 'a\\* '.repeat(20_000)],
  ])('shows a block of %s, which the parser would take seconds over, as plain text', (_name, source) => {
    const parsed = vi.mocked(fromMarkdown);
    parsed.mockClear();
    const { container } = renderReply(`Before.\n\n${source}\n\n*After*.`);
    expect(container.querySelector('[data-source]')?.textContent).toBe(`${source}\n\n`);
    expect(container.querySelector('em')?.textContent).toBe('After');
    // Not given to the parser at all.
    expect(
      parsed.mock.calls.map(([text]) => String(text)).filter((text) => text.includes(source.slice(0, 100))),
    ).toEqual([]);
  });

  it('parses a block with a few hundred markers, and code with any number', () => {
    const { container } = renderReply(`${'*a* '.repeat(120)}\n\n\`\`\`\n${'*'.repeat(5000)}\n\`\`\``);
    expect(container.querySelectorAll('em')).toHaveLength(120);
    expect(container.querySelector('pre code')?.textContent).toBe('*'.repeat(5000));
  });

  it('keeps ordinary nesting, thematic breaks and code as they were', () => {
    const { container } = renderReply(`> > quoted twice\n\n- - -\n\n\`\`\`\n${'> '.repeat(30)}code\n\`\`\``);
    expect(nesting(container, 'blockquote')).toBe(2);
    expect(container.querySelector('hr')).not.toBeNull();
    expect(container.querySelector('pre code')?.textContent).toBe(`${'> '.repeat(30)}code`);
  });

  it('while streaming, a deep reply renders piece by piece without throwing', () => {
    const view = renderReply('>', true);
    for (let end = 100; end <= 2000; end += 100) view.grow(`${'>'.repeat(end)} deep`);
    expect(nesting(view.container, 'blockquote')).toBe(20);
  });
});

describe('RichReply and links that lie through characters a reader cannot see', () => {
  it.each([
    ['a zero-width space', 'ba\u200Bnk.example', 'ba\u200Bnk.example'],
    ['a right-to-left override', '\u202Eelpmaxe.knab', 'elpmaxe.knab'],
    ['a soft hyphen', 'bank.example\u00AD', 'bank.example\u00AD'],
    ['an ideographic full stop', 'bank\u3002example', 'bank\u3002example'],
    ['a full-width full stop', 'bank\uFF0Eexample', 'bank\uFF0Eexample'],
    ['a half-width ideographic full stop', 'bank\uFF61example', 'bank\uFF61example'],
    ['full-width letters', 'ｂａｎｋ.example', 'ｂａｎｋ.example'],
    ['a left-to-right mark', 'evil.example\u200E', 'evil.example\u200E'],
    ['an isolate around honest-looking text', '\u2067click here\u2069', 'click here'],
  ])('shows a link with %s as text and its address', (_name, text, shown) => {
    const { container } = renderReply(`Log in at [${text}](https://evil.example/) now.`);
    expect(container.querySelector('a')).toBeNull();
    expect(container.textContent).toBe(`Log in at ${shown} (https://evil.example/) now.`);
  });

  it('keeps an honest link a link, also when its text needs folding to read as its host', () => {
    const { container } = renderReply(
      '[bank.example](https://bank.example/) [bank\u3002example](https://bank.example/a) [the bank](https://bank.example/b)',
    );
    expect(Array.from(container.querySelectorAll('a'), (a) => a.getAttribute('href'))).toEqual([
      'https://bank.example/',
      'https://bank.example/a',
      'https://bank.example/b',
    ]);
  });

  it("drops a reply's bidirectional embedding, override and isolate controls, and keeps its marks", () => {
    const { container } = renderReply(
      'a \u202Ereversed\u202C b \u2066isolated\u2069 `co\u202Ede` \u200Fmark\n\n```\nx = "\u202E" // y\n```',
    );
    expect(container.textContent).not.toMatch(/[\u202A-\u202E\u2066-\u2069]/);
    expect(container.textContent).toContain('a reversed b isolated code \u200Fmark');
    expect(container.querySelector('pre code')?.textContent).toBe('x = "" // y');
  });
});
