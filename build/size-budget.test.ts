import { describe, expect, it } from 'vitest';
import { checkBudget, namedChunks, pageChunks, publicScriptNames, readSizeReport, startUpChunks } from './size-budget';

const chunk = (
  fileName: string,
  code: string,
  extra: { isEntry?: boolean; imports?: string[]; dynamicImports?: string[]; name?: string } = {},
) => ({
  type: 'chunk' as const,
  fileName,
  code,
  ...extra,
});

describe('size budget', () => {
  const bundle = {
    'index.js': chunk('index.js', 'a'.repeat(5000), { isEntry: true, imports: ['runtime.js'] }),
    'runtime.js': chunk('runtime.js', 'b'.repeat(100), { imports: ['index.js'] }),
    'lazy.js': chunk('lazy.js', 'c'.repeat(90_000), { imports: ['runtime.js'], name: 'lazy' }),
    'style.css': { type: 'asset' as const, fileName: 'style.css' },
  };

  it('counts the entry and its static imports once each, not lazy chunks', () => {
    expect(startUpChunks(bundle).map((c) => c.fileName)).toEqual(['index.js', 'runtime.js']);
  });

  it("counts the entry's start-up stages (its dynamic imports) and their imports, but not theirs", () => {
    const staged = {
      'index.js': chunk('index.js', 'a', { isEntry: true, dynamicImports: ['react.js', 'main.js'] }),
      'react.js': chunk('react.js', 'b'),
      'main.js': chunk('main.js', 'c', { imports: ['react.js', 'shared.js'], dynamicImports: ['lazy.js'] }),
      'shared.js': chunk('shared.js', 'd'),
      'lazy.js': chunk('lazy.js', 'e', { imports: ['shared.js'] }),
    };
    expect(startUpChunks(staged).map((c) => c.fileName)).toEqual(['index.js', 'react.js', 'main.js', 'shared.js']);
  });

  it("keeps a page of its own (the owner's) out of the start-up, and counts it with what it imports", () => {
    const paged = {
      ...bundle,
      'owner.js': chunk('owner.js', 'o'.repeat(20_000), { isEntry: true, name: 'owner', imports: ['charts.js'] }),
      'charts.js': chunk('charts.js', 'p'.repeat(20_000)),
    };
    expect(startUpChunks(paged).map((c) => c.fileName)).toEqual(['index.js', 'runtime.js']);
    expect(pageChunks(paged, 'owner').map((c) => c.fileName)).toEqual(['owner.js', 'charts.js']);
  });

  it('fails with the figures when the total is over the budget', () => {
    const chunks = startUpChunks(bundle);
    const total = chunks[0].gzipBytes + chunks[1].gzipBytes;
    expect(checkBudget(chunks, total).ok).toBe(true);
    const over = checkBudget(chunks, total - 1);
    expect(over.ok).toBe(false);
    expect(over.report).toContain(`${total} B gzip (budget ${total - 1} B`);
    expect(over.report).toContain('index.js');
  });

  it('finds a lazy chunk by name for its own budget', () => {
    const [lazy] = namedChunks(bundle, 'lazy');
    expect(lazy.fileName).toBe('lazy.js');
    const report = checkBudget([lazy], lazy.gzipBytes - 1, 'lazy chunk lazy');
    expect(report.ok).toBe(false);
    expect(report.report).toContain(`lazy chunk lazy`);
    expect(namedChunks(bundle, 'missing')).toEqual([]);
  });

  it('reads the sizes back from a printed report, chunk by chunk and nothing else', () => {
    const { report } = checkBudget(startUpChunks(bundle));
    const printed = `vite v8\n[plugin size-budget] start-up JavaScript within budget:\n${report}\n✓ built in 1s`;
    const sizes = readSizeReport(printed);
    expect([...sizes.keys()]).toEqual(['index.js', 'runtime.js']);
    expect(sizes.get('index.js')).toBe(startUpChunks(bundle)[0].gzipBytes);
  });

  it("counts the page's scripts from the public folder, not the bundle's nor another origin's", () => {
    const page =
      '<script fetchpriority="low" type="module" crossorigin src="/app/assets/index-1.js"></script>' +
      '<script type="application/json" id="catalogue">{}</script>' +
      '<script async fetchpriority="low" src="/app/served-card.js"></script>' +
      '<script src="https://cdn.example/x.js"></script>';
    expect(publicScriptNames(page, '/app/')).toEqual(['served-card.js']);
  });
});
