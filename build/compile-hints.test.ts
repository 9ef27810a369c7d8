import { describe, expect, it } from 'vitest';
import { COMPILE_HINT, compileHints } from './compile-hints';

describe('compileHints', () => {
  it('puts the hint as the first line of every start-up chunk, once, and on no lazy chunk', () => {
    const bundle = {
      'index.js': { type: 'chunk', fileName: 'index.js', code: 'a()', isEntry: true, dynamicImports: ['main.js'] },
      'main.js': { type: 'chunk', fileName: 'main.js', code: 'b()', imports: [], dynamicImports: ['lazy.js'] },
      'lazy.js': { type: 'chunk', fileName: 'lazy.js', code: 'c()', imports: [] },
    };
    const generate = compileHints().generateBundle as (options: unknown, bundle: unknown) => void;
    generate({}, bundle);
    generate({}, bundle);
    expect(bundle['index.js'].code).toBe(`${COMPILE_HINT}\na()`);
    expect(bundle['main.js'].code).toBe(`${COMPILE_HINT}\nb()`);
    expect(bundle['lazy.js'].code).toBe('c()');
  });
});
