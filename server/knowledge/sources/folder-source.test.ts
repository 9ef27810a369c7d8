import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { filePage, readFolder } from './folder-source.ts';

const BASE = 'https://www.example.com/docs/';

describe('a file as a page', () => {
  it('takes the Markdown front matter’s title and address before the first heading and the path', () => {
    const page = filePage(
      'guide/returns.md',
      '---\ntitle: "Returns policy"\nurl: /help/returns\n---\n# Returns\nThirty days.\n',
      BASE,
      'en',
    );
    expect(page).toMatchObject({ title: 'Returns policy', url: 'https://www.example.com/help/returns' });
  });

  it('names a Markdown page by its first heading, then by its file name, at the source url plus its path', () => {
    expect(
      filePage('guide/install.md', 'Intro line.\n\n## Install it\nRun the installer.\n', BASE, 'en'),
    ).toMatchObject({
      title: 'Install it',
      url: 'https://www.example.com/docs/guide/install',
    });
    expect(filePage('notes/opening hours.md', 'We open at nine.\n', BASE, 'en')).toMatchObject({
      title: 'opening hours',
      url: 'https://www.example.com/docs/notes/opening%20hours',
    });
  });

  it('takes an HTML page’s <title>, canonical link and lang, else its first heading', () => {
    const html =
      '<html lang="de"><head><title>Versand &amp; Lieferung</title><link rel="canonical" href="https://shop.example.com/versand"></head><body><h1>Lieferung</h1><p>Zwei Tage.</p></body></html>';
    expect(filePage('shipping.html', html, BASE, 'en')).toMatchObject({
      title: 'Versand & Lieferung',
      url: 'https://shop.example.com/versand',
      language: 'de',
    });
    expect(filePage('care.htm', '<h2>Caring for a spade</h2><p>Oil the blade.</p>', BASE, 'en')).toMatchObject({
      title: 'Caring for a spade',
      url: 'https://www.example.com/docs/care',
      language: 'en',
    });
  });

  it('keeps the derived address when a file names one that is not http: or https:', () => {
    const page = filePage('x.md', '---\nurl: javascript:alert(1)\n---\ntext\n', BASE, 'en');
    expect(page?.url).toBe('https://www.example.com/docs/x');
    const html = filePage(
      'y.html',
      '<html><head><link rel="canonical" href="data:text/html,hi"></head><body>t</body></html>',
      BASE,
      'en',
    );
    expect(html?.url).toBe('https://www.example.com/docs/y');
  });

  it('reads a text file as paragraphs under its file name', () => {
    expect(filePage('faq.txt', 'First paragraph.\n\nSecond one.', BASE, 'en')).toEqual({
      url: 'https://www.example.com/docs/faq',
      title: 'faq',
      language: 'en',
      sections: [{ headings: [], text: 'First paragraph.\n\nSecond one.' }],
    });
  });
});

describe('section links and keywords', () => {
  it("publishes a folder's index file at the folder's own address", () => {
    expect(filePage('index.md', '# Home\nHello.', BASE, 'en')?.url).toBe('https://www.example.com/docs/');
    expect(filePage('faq/index.html', '<h1>FAQ</h1><p>Hi.</p>', BASE, 'en')?.url).toBe(
      'https://www.example.com/docs/faq/',
    );
    expect(filePage('faq/reindex.md', '# Re\nHi.', BASE, 'en')?.url).toBe('https://www.example.com/docs/faq/reindex');
  });

  it("gives a Markdown heading GitHub's id, numbered when two read the same", () => {
    const page = filePage('care.md', '# Care\nIntro.\n## Drying & ironing\nLow heat.\n## Care\nAgain.', BASE, 'en');
    expect(page?.sections.map(({ id }) => id)).toEqual(['care', 'drying--ironing', 'care-1']);
  });

  it("reads an HTML heading's id from itself, an anchor inside it or its enclosing section, before Readability", () => {
    const filler = 'Wash it at forty degrees with a mild detergent and hang it to dry in the shade afterwards. ';
    const html = `<html><head><title>Care</title><meta name="keywords" content="laundry, dryer"></head><body>
      <nav>Home</nav><article><h1>Care</h1>
      <h2 id="washing">Washing</h2><p>${filler.repeat(3)}</p>
      <section id="drying"><h2>Drying</h2><p>${filler.repeat(3)}</p></section>
      <div class="sect2" id="IRONING"><h3>Ironing</h3><p>${filler.repeat(3)}</p>
      <div class="note"><h4>Note</h4><p>${filler}</p></div></div>
      <h2><a name="stains"></a>Stains</h2><p>${filler.repeat(3)}</p>
      <h2>Plain</h2><p>${filler}</p></article></body></html>`;
    const page = filePage('care.html', html, BASE, 'en');
    expect(page?.sections.map(({ headings, id }) => [headings.at(-1), id])).toEqual([
      ['Washing', 'washing'],
      ['Drying', 'drying'],
      ['Ironing', 'IRONING'],
      ['Note', 'IRONING'],
      ['Stains', 'stains'],
      ['Plain', undefined],
    ]);
    expect(page?.keywords).toBe('laundry, dryer');
  });

  it('reads front matter keywords, as a line or a list', () => {
    expect(filePage('a.md', '---\nkeywords: phone, call\n---\n# A\nx', BASE, 'en')?.keywords).toBe('phone, call');
    expect(filePage('b.md', '---\nkeywords: [phone, call]\n---\n# B\nx', BASE, 'en')?.keywords).toBe('phone, call');
  });

  it('reads a description from the meta tag or the front matter, one line of at most 300 characters', () => {
    const meta = `<html><head><meta name="Description" content="Garden tools,\n  forged by hand."></head><body><p>x</p>`;
    expect(filePage('index.html', meta, BASE, 'en')?.description).toBe('Garden tools, forged by hand.');
    const long = filePage('c.md', `---\ndescription: "${'ab '.repeat(200)}"\n---\n# C\nx`, BASE, 'en');
    expect(long?.description).toHaveLength(300);
    expect(filePage('d.md', '# D\nx', BASE, 'en')).not.toHaveProperty('description');
  });
});

describe('a folder source', () => {
  let folder: string;
  beforeAll(async () => {
    folder = await mkdtemp(join(tmpdir(), 'knowledge-folder-'));
    await mkdir(join(folder, 'guide', 'deep'), { recursive: true });
    await writeFile(join(folder, 'index.md'), '# Welcome\nHello.\n');
    await writeFile(join(folder, 'guide', 'deep', 'page.html'), '<title>Deep page</title><p>Deep text.</p>');
    await writeFile(join(folder, 'notes.txt'), 'Plain notes.');
    await writeFile(join(folder, 'logo.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0]));
    await writeFile(join(folder, 'binary.md'), Buffer.from([0x23, 0x20, 0x41, 0x00, 0x42]));
    await writeFile(join(folder, 'latin1.txt'), Buffer.from([0x63, 0x61, 0x66, 0xe9]));
    await symlink(join(folder, 'guide'), join(folder, 'folder-link.md'));
  });
  afterAll(() => rm(folder, { recursive: true, force: true }));

  it('reads .md, .html and .txt files recursively and skips the others with a log line that names them', async () => {
    const log: string[] = [];
    // Written with a `./` and a trailing slash, as a configuration file might.
    const written = `./${relative(process.cwd(), folder)}/`;
    const outcomes = await readFolder(written, 'https://www.example.com/docs', 'en', (line) => log.push(line));
    const pages = outcomes.flatMap((outcome) => (outcome.kind === 'page' ? [outcome.page] : []));
    expect(pages.map(({ title, url }) => [title, url]).sort()).toEqual([
      ['Deep page', 'https://www.example.com/docs/guide/deep/page'],
      ['Welcome', 'https://www.example.com/docs/'],
      ['notes', 'https://www.example.com/docs/notes'],
    ]);
    const named = (file: string) => log.filter((line) => line.includes(join(written, file)));
    expect(named('logo.png')).toEqual([expect.stringContaining('not a .md, .html or .txt file')]);
    expect(named('binary.md')).toEqual([expect.stringContaining('not UTF-8 text')]);
    expect(named('latin1.txt')).toEqual([expect.stringContaining('not UTF-8 text')]);
    expect(named('folder-link.md')).toEqual([expect.stringContaining('cannot be read')]);
    expect(log).toHaveLength(4);
  });
});
