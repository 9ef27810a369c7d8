// @vitest-environment node
import { describe, expect, it } from 'vitest';
import { startUpPreload } from './start-up-preload';

type Handler = (html: string, context: { bundle?: unknown; chunk?: unknown }) => { attrs: { href: string } }[];

describe('startUpPreload', () => {
  it("preloads the entry's start-up stages and their imports, not the entry's own imports nor a lazy chunk", () => {
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
    const plugin = startUpPreload();
    (plugin.configResolved as (config: { base: string }) => void)({ base: '/app/' });
    const { handler } = plugin.transformIndexHtml as unknown as { handler: Handler };
    const tags = handler('<html></html>', { bundle, chunk: entry });
    expect(tags.map((tag) => tag.attrs.href)).toEqual([
      '/app/assets/react.js',
      '/app/assets/main.js',
      '/app/assets/shared.js',
    ]);
    expect(tags[0]).toMatchObject({
      tag: 'link',
      attrs: { rel: 'modulepreload', crossorigin: true },
      injectTo: 'head',
    });
  });
});
