import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EMBED_ACCENT_SENTINEL } from '../../contract/embed.ts';
import { PAGE_SETTINGS_ID, TITLE_SENTINEL } from '../../contract/page-settings.ts';
import { CATALOGUES } from '../../locales/catalogues.ts';
import { LANGUAGES } from '../../locales/languages.ts';
import { DEFAULT_ASSISTANT_CONFIG } from '../settings/assistant-config.ts';
import {
  fillPageHtml,
  fillPages,
  launcherName,
  localizeLoader,
  pageTemplatesDir,
  readPageTemplates,
} from './page-html.ts';

const TEMPLATE = `<html lang="de"><head><title>AI Assistant</title></head><body><h1>${TITLE_SENTINEL}</h1></body></html>`;

describe('the page as served', () => {
  it("without a configured title has the language's own, in the card and the document, and no settings block", () => {
    const html = fillPageHtml(TEMPLATE, DEFAULT_ASSISTANT_CONFIG, CATALOGUES.de.title);
    expect(html).toContain(`<title>${CATALOGUES.de.title}</title>`);
    expect(html).toContain(`<h1>${CATALOGUES.de.title}</h1>`);
    expect(html).not.toContain(PAGE_SETTINGS_ID);
  });

  it("with the site's title has it in every language, escaped, and the settings block carries it", () => {
    const fill = { page: { ...DEFAULT_ASSISTANT_CONFIG.page, title: 'Acme <Help> & "Co"' } };
    const html = fillPageHtml(TEMPLATE, fill, CATALOGUES.de.title);
    expect(html).toContain('<h1>Acme &lt;Help&gt; &amp; &quot;Co&quot;</h1>');
    expect(html).toContain('<title>Acme &lt;Help&gt; &amp; &quot;Co&quot;</title>');
    expect(html).not.toContain(TITLE_SENTINEL);
    const block = new RegExp(`id="${PAGE_SETTINGS_ID}">(.*?)</script>`).exec(html)?.[1] ?? '';
    expect(block).not.toContain('<');
    expect(JSON.parse(block)).toMatchObject({ title: 'Acme <Help> & "Co"' });
  });
});

describe("the build's pages as the server reads them", () => {
  const finished = (title: string) =>
    `<html><head><title>${title}</title></head><body><h1><svg></svg>${title}</h1></body></html>`;
  const acme = { page: { ...DEFAULT_ASSISTANT_CONFIG.page, title: 'Acme' } };

  it('fills the templates kept beside the client folder, not the finished pages in it', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'page-html-'));
    try {
      const client = join(dir, 'client');
      await mkdir(client);
      await mkdir(pageTemplatesDir(client));
      await writeFile(join(client, 'index.html'), finished('Finished, not the template'));
      await writeFile(join(pageTemplatesDir(client), 'index.html'), TEMPLATE);
      expect(fillPages(readPageTemplates(client), acme).en).toContain('<h1>Acme</h1>');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("without the templates, puts the site's title where the finished page has the language's own", async () => {
    const dir = await mkdtemp(join(tmpdir(), 'page-html-'));
    try {
      await writeFile(join(dir, 'index.html'), finished(CATALOGUES.en.title));
      await writeFile(join(dir, 'index.de.html'), finished(CATALOGUES.de.title));
      const pages = fillPages(readPageTemplates(dir), acme);
      // A language without a page of its own gets the English one.
      for (const language of ['en', 'de', 'fr'] as const) {
        expect(pages[language], language).toContain('<title>Acme</title>');
        expect(pages[language], language).toContain('<h1><svg></svg>Acme</h1>');
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('the embed loader as served', () => {
  const built = `b.setAttribute(\`aria-label\`,d.label||\`Chat with AI Assistant\`);f.title="AI Assistant chat";c.innerHTML=\`:host{--ai-accent:${EMBED_ACCENT_SENTINEL}!important}\`;`;
  const unset = DEFAULT_ASSISTANT_CONFIG;

  it("names the launcher and the frame in the language, escaped for a script of any quotes and any page's encoding", () => {
    const french = localizeLoader(built, 'fr', unset);
    expect(french).toContain('d.label||`Discuter avec Assistant IA`');
    expect(french).toContain('f.title="Discussion avec l\\u2019assistant IA"');
    expect(french).not.toMatch(/[^\x20-\x7e]/);
    // What the script would say, read back as JavaScript.
    const label = /d\.label\|\|(`[^`]*`)/.exec(localizeLoader(built, 'ja', unset))?.[1] ?? '';
    expect(new Function(`return ${label}`)()).toBe(`${CATALOGUES.ja.title}とチャット`);
  });

  it("words its notice for a frame that does not answer in every language, as HTML text in the script's markup", () => {
    const notice = `d.innerHTML=\`<dialog><div role=alert>${CATALOGUES.en.frameFailed} <a href="\${f}" target=_blank>${CATALOGUES.en.openInTab}</a><form method=dialog><button>${CATALOGUES.en.close}\`;`;
    for (const language of LANGUAGES) {
      const markup = /d\.innerHTML=(`(?:\\.|[^`\\])*`)/.exec(localizeLoader(notice, language, unset))?.[1] ?? '';
      const { frameFailed, openInTab, close } = CATALOGUES[language];
      // What the script would write, read back as JavaScript (the link's address left as it is).
      const html = new Function('f', `return ${markup}`)('https://assistant.example/');
      expect(html, language).toBe(
        `<dialog><div role=alert>${frameFailed} <a href="https://assistant.example/" target=_blank>${openInTab}</a><form method=dialog><button>${close}`,
      );
    }
  });

  it("names the launcher after the site's title in every language, and gives it the site's accent", () => {
    // Every character that could end or break out of a template literal, and one beyond ASCII.
    const title = ['Acme `', '$', '{Garden}` \\ Hélp'].join('');
    const fill = {
      page: { ...unset.page, title },
      accent: { light: '#7e22ce', dark: '#5b189a', darkRing: '#954ad7' },
    };
    for (const language of LANGUAGES) {
      const served = localizeLoader(built, language, fill);
      const label = /d\.label\|\|(`(?:\\.|[^`\\])*`)/.exec(served)?.[1] ?? '';
      expect(new Function(`return ${label}`)()).toBe(launcherName(language, title));
      expect(label).toContain('Acme');
      expect(served).toContain('--ai-accent:light-dark(#7e22ce,#5b189a)!important');
      expect(served).not.toContain(EMBED_ACCENT_SENTINEL);
    }
    expect(launcherName('en', 'Acme Garden Help')).toBe('Chat with Acme Garden Help');
    expect(launcherName('de', 'Acme Garden Help')).toBe('Chat mit Acme Garden Help');
  });

  it('is the built loader itself in English with no title or accent', () => {
    expect(localizeLoader(built, 'en', unset)).toBe(built);
  });
});
