import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

describe('docs/deployment.md', () => {
  it('shows deploy/nginx.conf exactly as it is, so that the copy a reader takes is the tested one', () => {
    const docs = readFileSync(new URL('../docs/deployment.md', import.meta.url), 'utf8');
    const conf = readFileSync(new URL('./nginx.conf', import.meta.url), 'utf8');
    const shown = /<!-- deploy\/nginx\.conf -->\n```nginx\n([\s\S]*?)```\n/.exec(docs)?.[1];
    expect(shown).toBe(conf);
  });
});
