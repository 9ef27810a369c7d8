import { describe, expect, it } from 'vitest';
import { EMBED_ACCENT_SENTINEL } from '../contract/embed.ts';
import { en } from '../locales/en.ts';
import { bundleLoader, checkLoaderBudget, EMBED_BUDGET_BYTES } from './embed-loader.ts';

describe('the embed loader build', () => {
  it('is one classic script under its budget, with nothing of React or Chakra', async () => {
    const code = await bundleLoader();
    const { gzipBytes, ok, report } = checkLoaderBudget(code);

    expect(ok).toBe(true);
    expect(gzipBytes).toBeLessThanOrEqual(EMBED_BUDGET_BYTES);
    expect(report).toContain('embed.js');
    expect(code).not.toMatch(/\bimport\b|react|chakra|emotion/i);
    expect(code).toContain('attachShadow({mode:`open`})');
    // The server names the launcher and the frame in the visitor's language, and gives the launcher the site's accent,
    // by these (server/pages/page-html.ts).
    for (const text of [en.launcher.replace('{title}', en.title), en.frameTitle]) {
      expect(code).toMatch(new RegExp(`([\`'"])${text}\\1`));
    }
    // And its notice for a frame that does not answer, HTML text in its markup.
    for (const text of [en.frameFailed, en.openInTab, en.close]) expect(code).toContain(`>${text}`);
    expect(code.split(EMBED_ACCENT_SENTINEL)).toHaveLength(2);
  }, 30_000);

  it('fails the budget one byte over it', () => {
    const code = 'x'.repeat(100);
    const { gzipBytes } = checkLoaderBudget(code);

    expect(checkLoaderBudget(code, gzipBytes).ok).toBe(true);
    expect(checkLoaderBudget(code, gzipBytes - 1).ok).toBe(false);
  });
});
