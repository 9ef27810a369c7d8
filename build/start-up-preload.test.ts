import { describe, expect, it } from 'vitest';
import { startUpPreload } from './start-up-preload';

type Tag = { tag: string; attrs: Record<string, unknown>; injectTo: string };
type Handler = (html: string, context: { bundle?: unknown; chunk?: unknown }) => { html: string; tags: Tag[] };

const chunk = (fileName: string, imports: string[] = [], dynamicImports: string[] = [], isEntry = false) => ({
  type: 'chunk',
  fileName,
  imports,
  dynamicImports,
  isEntry,
  code: '',
});
const entry = chunk('assets/index.js', ['assets/runtime.js'], ['assets/react.js', 'assets/main.js'], true);
const bundle = {
  'assets/index.js': entry,
  'assets/runtime.js': chunk('assets/runtime.js'),
  'assets/react.js': chunk('assets/react.js'),
  'assets/main.js': chunk('assets/main.js', ['assets/react.js', 'assets/shared.js'], ['assets/lazy.js']),
  'assets/shared.js': chunk('assets/shared.js'),
  'assets/lazy.js': chunk('assets/lazy.js', ['assets/shared.js']),
};
const page =
  '<html><head><script type="module" crossorigin src="/app/assets/index.js"></script>' +
  '<link rel="modulepreload" crossorigin href="/app/assets/runtime.js"></head></html>';

function handler(): Handler {
  const plugin = startUpPreload();
  (plugin.configResolved as (config: { base: string }) => void)({ base: '/app/' });
  return (plugin.transformIndexHtml as unknown as { handler: Handler }).handler;
}

describe('startUpPreload', () => {
  it("preloads the entry's start-up stages and their imports at low priority, not the entry's imports nor a lazy chunk", () => {
    const { tags } = handler()(page, { bundle, chunk: entry });
    expect(tags.map((tag) => tag.attrs.href)).toEqual([
      '/app/assets/react.js',
      '/app/assets/main.js',
      '/app/assets/shared.js',
    ]);
    for (const tag of tags) {
      expect(tag).toMatchObject({
        tag: 'link',
        attrs: { rel: 'modulepreload', crossorigin: true, fetchpriority: 'low' },
        injectTo: 'head',
      });
    }
  });

  it("gives Vite's own tags low priority too (the entry's script, its static imports' links), and fails without them", () => {
    const { html } = handler()(page, { bundle, chunk: entry });
    expect(html).toBe(
      '<html><head><script fetchpriority="low" type="module" crossorigin src="/app/assets/index.js"></script>' +
        '<link fetchpriority="low" rel="modulepreload" crossorigin href="/app/assets/runtime.js"></head></html>',
    );
    expect(() => handler()('<html><head></head></html>', { bundle, chunk: entry })).toThrow(/no <script/);
    const noLink = page.replace(/<link[^>]*>/, '');
    expect(() => handler()(noLink, { bundle, chunk: entry })).toThrow(/no <link rel="modulepreload"/);
  });
});
