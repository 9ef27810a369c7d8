import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_PAGE_SETTINGS } from '../../contract/page-settings.ts';
import { darkBackgroundContrastOf, whiteContrastOf } from '../pages/accent.ts';
import { DEFAULT_ASSISTANT_CONFIG, loadAssistantConfig, parseAssistantConfig } from './assistant-config.ts';
import { AssistantConfigError } from './config-file.ts';

const proxy = { direct: false };

function problems(source: string, options: { direct: boolean; smtp?: boolean } = proxy): string[] {
  try {
    parseAssistantConfig(source, 'test.yaml', options);
  } catch (error) {
    if (error instanceof AssistantConfigError) return error.problems;
    throw error;
  }
  throw new Error('the configuration was accepted');
}

describe('the configuration file', () => {
  it('reads every key, in YAML or JSON', () => {
    const yaml = parseAssistantConfig(
      [
        'title: "  Acme Help  "',
        'welcome: "**Hello!** Ask me about our shop."',
        'starters: [What do you sell?, Where are you?]',
        'instructions: Only talk about Acme.',
        'accent: "#1d4ed8"',
        'history: 2',
      ].join('\n'),
      'a.yaml',
      proxy,
    );
    const json = parseAssistantConfig(
      JSON.stringify({ title: 'Acme Help', starters: ['What do you sell?'], history: 0 }),
      'a.json',
      proxy,
    );

    expect(yaml).toEqual({
      file: 'a.yaml',
      page: {
        title: 'Acme Help',
        welcome: '**Hello!** Ask me about our shop.',
        starters: ['What do you sell?', 'Where are you?'],
        history: 2,
      },
      accent: {
        light: '#1d4ed8',
        dark: expect.stringMatching(/^#[0-9a-f]{6}$/),
        darkRing: expect.stringMatching(/^#[0-9a-f]{6}$/),
      },
      instructions: 'Only talk about Acme.',
    });
    expect(json.page).toEqual({ title: 'Acme Help', starters: ['What do you sell?'], history: 0 });
  });

  it('keeps the spec for an empty file', () => {
    expect(parseAssistantConfig('', 'empty.yaml', proxy).page).toEqual(DEFAULT_PAGE_SETTINGS);
  });

  it.each([
    [
      'titel: Acme',
      /^titel \(line 1\): is not a known key \(did you mean title\? the keys are title, welcome, starters, instructions, limit_message, accent, language, knowledge, history, persist, page_context, contact, rewrite_questions, description, handoff, actions\)/,
    ],
    ['title: 42', /^title \(line 1\): 42 must be text of 1 to 60 characters/],
    ['title: "   "', /^title \(line 1\): " {3}" must be text of 1 to 60 characters, not blank/],
    [`title: ${'x'.repeat(61)}`, /^title \(line 1\): "x+\.\.\. is 61 characters long; the limit is 60$/],
    ['welcome: [a, b]', /^welcome \(line 1\): \["a","b"\] must be text of 1 to 2000 characters/],
    ['starters: [a, b, c, d, e]', /^starters \(line 1\): \["a","b","c","d","e"\] must be a list of up to 4 questions/],
    [`starters: [ok, ${'q'.repeat(81)}]`, /^starters\.1 \(line 1\): "q+\.\.\. is 81 characters long; the limit is 80$/],
    [
      'accent: #15803d',
      /^accent \(line 1\): is empty: YAML reads .* as a comment\. Put the value in quotes: accent: "#15803d"$/,
    ],
    ['starters: Where are you?', /^starters \(line 1\): "Where are you\?" must be a list of up to 4 questions/],
    ['instructions: {a: 1}', /^instructions \(line 1\): \{"a":1\} must be text of 1 to 8000 characters/],
    ['history: 11', /^history \(line 1\): 11 must be a whole number from 0 to 10/],
    ['history: -1', /^history \(line 1\): -1 must be a whole number from 0 to 10/],
    ['history: 1.5', /^history \(line 1\): 1\.5 must be a whole number from 0 to 10/],
    ['history: "2"', /^history \(line 1\): "2" must be a whole number from 0 to 10/],
    [
      'accent: blue',
      /^accent \(line 1\): "blue" must be a CSS colour written as #rgb, #rrggbb, rgb\(r g b\) or hsl\(h s% l%\)/,
    ],
    ['accent: 12', /^accent \(line 1\): 12 must be a CSS colour/],
    [
      'accent: "#ffcc00"',
      /^accent \(line 1\): "#ffcc00" white text on it has a contrast of 1\.\d\d:1; it must be at least 4\.5:1/,
    ],
    ['accent: rgb(300 0 0)', /^accent \(line 1\): "rgb\(300 0 0\)" must be a CSS colour/],
    ['language: xx', /^language \(line 1\): "xx" must be one of en, de, fr, es, it, pt-BR, nl, pl, ja, zh-CN, ar, he/],
    ['language: zh-TW', /^language \(line 1\): "zh-TW" must be one of en, de/],
    ['language: 7', /^language \(line 1\): 7 must be one of en, de/],
    ['- a list', /^\(top level\): must be a mapping of keys/],
    ['title: [unclosed', /^not valid YAML: /],
  ])('refuses %j, naming the key, its value and what is allowed', (source, message) => {
    const found = problems(source);
    expect(found).toHaveLength(1);
    expect(found[0]).toMatch(message);
  });

  it("takes a site language by its catalogue, a regional variant by its base language's", () => {
    expect(parseAssistantConfig('language: de-AT', 'l.yaml', proxy).language).toBe('de');
    expect(parseAssistantConfig('language: pt', 'l.yaml', proxy).language).toBe('pt-BR');
    expect(parseAssistantConfig('title: Acme', 'l.yaml', proxy).language).toBeUndefined();
  });

  it('names every problem at once, in the order of the keys, each with its line', () => {
    expect(problems('history: 20\ncolour: red\ntitle: ""')).toEqual([
      expect.stringMatching(/^title \(line 3\): "" /),
      expect.stringMatching(/^history \(line 1\): 20 /),
      expect.stringMatching(/^colour \(line 2\): is not a known key/),
    ]);
  });

  it("names every unknown key at once, each at its own line, a knowledge source's too", () => {
    const source = [
      'title: Acme',
      '',
      'knowlege:',
      '  - sitemap: https://www.example.com/sitemap.xml',
      'contacts: https://www.example.com/contact',
      'welcom: |',
      '  Hello!',
    ];
    expect(problems(source.join('\n'))).toEqual([
      expect.stringMatching(/^knowlege \(line 3\): is not a known key \(did you mean knowledge\? the keys are title, /),
      expect.stringMatching(/^contacts \(line 5\): is not a known key \(did you mean contact\? /),
      expect.stringMatching(/^welcom \(line 6\): is not a known key \(did you mean welcome\? /),
    ]);
    const entry = ['knowledge:', '  - sitemap: https://a.example/sitemap.xml', '    max_page: 20', '    lenguage: de'];
    expect(problems(entry.join('\n'))).toEqual([
      expect.stringMatching(
        /^knowledge\.0\.max_page \(line 3\): is not a key of a knowledge source \(did you mean max_pages\? /,
      ),
      expect.stringMatching(/^knowledge\.0\.lenguage \(line 4\): is not a key of a knowledge source \(the keys are /),
    ]);
  });

  it("gives a value's own line deep in the file, and a too-long text's length and the limit", () => {
    const source = ['title: Acme', 'starters:', '  - ok', `  - ${'q'.repeat(81)}`, `limit_message: ${'m'.repeat(201)}`];
    expect(problems(source.join('\n'))).toEqual([
      expect.stringMatching(/^starters\.1 \(line 4\): "q+\.\.\. is 81 characters long; the limit is 80$/),
      expect.stringMatching(/^limit_message \(line 5\): "m+\.\.\. is 201 characters long; the limit is 200$/),
    ]);
  });

  it("gives the site's own limit_message to the page", () => {
    expect(parseAssistantConfig('limit_message: " Busy, back soon. "', 'l.yaml', proxy).page).toEqual({
      ...DEFAULT_PAGE_SETTINGS,
      limitMessage: 'Busy, back soon.',
    });
  });

  it('takes contact (an https: or mailto: address) to the page, and stops at anything else with its key and line', () => {
    expect(parseAssistantConfig('contact: https://shop.example/help', 'c.yaml', proxy).page.contact).toBe(
      'https://shop.example/help',
    );
    expect(parseAssistantConfig('contact: mailto:help@shop.example', 'c.yaml', proxy).page.contact).toBe(
      'mailto:help@shop.example',
    );
    for (const bad of ['http://shop.example/help', 'javascript:alert(1)', 'help@shop.example', '42']) {
      expect(() => parseAssistantConfig(`title: Shop\ncontact: ${bad}`, 'c.yaml', proxy)).toThrow(
        /contact \(line 2\): .*must be an https: address or a mailto: address/,
      );
    }
  });

  it('takes handoff (email, webhook, reply_within): the page hears of it, the addresses stay on the server', () => {
    const config = parseAssistantConfig(
      'handoff:\n  email: help@shop.example\n  webhook: https://hooks.example/x\n  reply_within: one working day',
      'h.yaml',
      { ...proxy, smtp: true },
    );
    expect(config.handoff).toEqual({ email: 'help@shop.example', webhook: 'https://hooks.example/x' });
    expect(config.page.handoff).toEqual({ replyWithin: 'one working day' });
    expect(parseAssistantConfig('handoff:\n  webhook: https://hooks.example/x', 'h.yaml', proxy).page.handoff).toEqual(
      {},
    );
    expect(problems('title: Shop\nhandoff:\n  email: help@shop.example', { ...proxy, smtp: false })).toEqual([
      'handoff.email (line 3): needs SMTP_URL (smtp://user:password@smtp.example:587) to send',
    ]);
    expect(problems('handoff:\n  email: not-an-address')).toEqual([
      expect.stringMatching(/^handoff\.email \(line 2\): "not-an-address" must be one email address/),
    ]);
    expect(problems('handoff:\n  emial: help@shop.example')).toEqual([
      expect.stringMatching(/^handoff\.emial \(line 2\): is not a key of handoff \(did you mean email\?/),
    ]);
    expect(problems('handoff:\n  reply_within: soon')).toEqual([
      expect.stringMatching(/^handoff \(line 2\): .*needs an email, a webhook, or both/),
    ]);
    expect(problems('handoff:\n  webhook: https://hooks.example/x', { direct: true })).toEqual([
      expect.stringMatching(/^handoff \(line 2\): not allowed in a direct-mode build/),
    ]);
  });

  it('takes persist (off, the default, or tab) and page_context, and refuses other values', () => {
    const config = parseAssistantConfig('persist: tab\npage_context: true', 'p.yaml', proxy);
    expect(config.page).toMatchObject({ persist: 'tab', pageContext: true });
    const off = parseAssistantConfig('persist: "off"\npage_context: false', 'p.yaml', proxy);
    expect(off.page).toEqual({ starters: [], history: 0 });
    expect(off.page.pageContext).toBeUndefined();
    expect(problems('persist: local')).toEqual([expect.stringMatching(/^persist \(line 1\): .*must be off or tab/)]);
  });

  it('refuses page_context in a direct-mode build', () => {
    expect(problems('page_context: true', { direct: true })).toEqual([
      expect.stringMatching(/^page_context \(line 1\): not allowed in a direct-mode build/),
    ]);
  });

  it('refuses instructions, history and knowledge in a direct-mode build, whose page would carry them', () => {
    const found = problems(
      'title: Acme\ninstructions: Be brief.\nhistory: 2\nknowledge:\n  - sitemap: https://a.example/sitemap.xml',
      { direct: true },
    );

    expect(found).toEqual([
      expect.stringMatching(/^instructions \(line 2\): not allowed in a direct-mode build/),
      expect.stringMatching(/^history \(line 3\): not allowed in a direct-mode build/),
      expect.stringMatching(/^knowledge \(line 5\): not allowed in a direct-mode build/),
    ]);
    expect(
      parseAssistantConfig('title: Acme\nstarters: [Hi?]\naccent: "#000"', 'd.yaml', { direct: true }).page.title,
    ).toBe('Acme');
  });
});

describe('knowledge', () => {
  it("reads folders against the file's own folder, and sitemaps as given", () => {
    const site = mkdtempSync(join(tmpdir(), 'assistant-config-'));
    mkdirSync(join(site, 'site-docs'));
    const config = parseAssistantConfig(
      'knowledge:\n  - path: ./site-docs\n    url: https://www.example.com/docs/\n  - sitemap: https://www.example.com/sitemap.xml\n    max_pages: 50000',
      join(site, 'assistant.config.yaml'),
      proxy,
    );

    expect(config.knowledge).toEqual([
      { path: join(site, 'site-docs'), url: 'https://www.example.com/docs/' },
      { sitemap: 'https://www.example.com/sitemap.xml', maxPages: 50_000 },
    ]);
    // A folder that is not there, or a file where the folder should be, stops the start with its key and line.
    writeFileSync(join(site, 'notes.md'), '# Notes');
    expect(() =>
      parseAssistantConfig(
        'knowledge:\n  - path: ./site-pagez\n    url: https://www.example.com/docs/\n  - path: ./notes.md\n    url: https://www.example.com/notes/',
        join(site, 'assistant.config.yaml'),
        proxy,
      ),
    ).toThrow(
      expect.objectContaining({
        problems: [
          `knowledge.0.path (line 2): "./site-pagez" is not a folder (${join(site, 'site-pagez')})`,
          `knowledge.1.path (line 4): "./notes.md" is not a folder (${join(site, 'notes.md')})`,
        ],
      }),
    );
    rmSync(site, { recursive: true });
  });

  it.each([
    ['knowledge: []', /^knowledge \(line 1\): \[\] must be a list of up to 20 sources/],
    ['knowledge: ./docs', /^knowledge \(line 1\): "\.\/docs" must be a list of up to 20 sources/],
    [
      'knowledge:\n  - path: ./docs\n    url: ftp://a.example/',
      /^knowledge\.0\.url \(line 3\): "ftp:\/\/a\.example\/" must be an http: or https: address/,
    ],
    [
      'knowledge:\n  - sitemap: javascript:alert(1)',
      /^knowledge\.0\.sitemap \(line 2\): "javascript:alert\(1\)" must be an http: or https: address/,
    ],
    ['knowledge:\n  - path: ./docs', /^knowledge\.0 \(line 2\): .* must be a folder and its address/],
    [
      'knowledge:\n  - sitemap: https://a.example/sitemap.xml\n    max_pages: 0',
      /^knowledge\.0\.max_pages \(line 3\): 0 must be a whole number from 1 to 50000/,
    ],
    [
      'knowledge:\n  - sitemap: https://a.example/sitemap.xml\n    max_pages: 50001',
      /^knowledge\.0\.max_pages \(line 3\): 50001 must be a whole number from 1 to 50000/,
    ],
    [
      'knowledge:\n  - sitemap: https://a.example/sitemap.xml\n    max_page: 20',
      /^knowledge\.0\.max_page \(line 3\): is not a key of a knowledge source \(did you mean max_pages\? /,
    ],
    ['titel: Acme', /^titel \(line 1\): is not a known key \(did you mean title\? the keys are/],
  ])('refuses %j, naming the key and its line', (source, message) => {
    expect(problems(source)).toEqual([expect.stringMatching(message)]);
  });
});

describe('the accent', () => {
  it.each(['#1d4ed8', '#14d', 'rgb(29 78 216)', 'rgb(29, 78, 216)', 'hsl(224 76% 48%)', '#000000', '#767676'])(
    'accepts %s, with a dark shade that white text reads on and that stands out on the dark page at 3:1, and a ring',
    (accent) => {
      const { accent: shades } = parseAssistantConfig(`accent: "${accent}"`, 'a.yaml', proxy);
      if (!shades) throw new Error('no accent');

      expect(whiteContrastOf(shades.light)).toBeGreaterThanOrEqual(4.5);
      expect(whiteContrastOf(shades.dark)).toBeGreaterThanOrEqual(4.5);
      expect(darkBackgroundContrastOf(shades.dark)).toBeGreaterThanOrEqual(3);
      expect(darkBackgroundContrastOf(shades.darkRing, true)).toBeGreaterThanOrEqual(3);
    },
  );

  it('darkens a bright accent towards 7:1 for white text, but no further than 3:1 against the dark page', () => {
    const { accent } = parseAssistantConfig('accent: "#0e7490"', 'a.yaml', proxy);
    if (!accent) throw new Error('no accent');
    expect(whiteContrastOf(accent.dark)).toBeGreaterThan(whiteContrastOf(accent.light));
    expect(darkBackgroundContrastOf(accent.dark)).toBeGreaterThanOrEqual(3);
  });

  it('gives a dark accent a lighter shade in the dark scheme, where it would fade into the page', () => {
    const { accent } = parseAssistantConfig('accent: "#1e1b4b"', 'a.yaml', proxy);
    expect(darkBackgroundContrastOf('#1e1b4b')).toBeLessThan(1.5);
    expect(accent).toEqual({ light: '#1e1b4b', dark: '#5f5d7f', darkRing: '#6f6d8c' });
  });
});

describe('finding the file', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'assistant-config-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('uses the spec without a file, and assistant.config.yaml in the working directory when there is one', async () => {
    expect(loadAssistantConfig({}, dir, proxy)).toBe(DEFAULT_ASSISTANT_CONFIG);

    await writeFile(join(dir, 'assistant.config.yaml'), 'title: Found\n');
    expect(loadAssistantConfig({}, dir, proxy)).toMatchObject({
      file: join(dir, 'assistant.config.yaml'),
      page: { title: 'Found' },
    });
  });

  it('reads the file ASSISTANT_CONFIG names, and refuses one that is missing', async () => {
    await writeFile(join(dir, 'site.json'), '{"title": "From JSON"}');

    expect(loadAssistantConfig({ ASSISTANT_CONFIG: 'site.json' }, dir, proxy).page.title).toBe('From JSON');
    expect(() => loadAssistantConfig({ ASSISTANT_CONFIG: 'missing.yaml' }, dir, proxy)).toThrow(
      /ASSISTANT_CONFIG: "missing\.yaml" names no file/,
    );
  });
});

describe('assistant.config.example.yaml', () => {
  it('is a valid configuration that sets every key', () => {
    const source = readFileSync(new URL('../../assistant.config.example.yaml', import.meta.url), 'utf8');
    const config = parseAssistantConfig(source, 'example', proxy);

    expect(Object.keys(config).sort()).toEqual(['accent', 'description', 'file', 'instructions', 'page']);
    expect(Object.keys(config.page).sort()).toEqual([
      'history',
      'pageContext',
      'persist',
      'starters',
      'title',
      'welcome',
    ]);
  });
});
