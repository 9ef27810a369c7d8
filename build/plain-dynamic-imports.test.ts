import { describe, expect, it } from 'vitest';
import { PRELOAD_HELPER_ID, plainDynamicImports } from './plain-dynamic-imports';

describe('plainDynamicImports', () => {
  const load = plainDynamicImports().load as (id: string) => string | undefined;

  it("gives Vite's preload helper a body that only calls the import", async () => {
    const code = load(PRELOAD_HELPER_ID);
    expect(code).toBe('export const __vitePreload = (load) => load();');
    const module = await import(`data:text/javascript,${encodeURIComponent(code ?? '')}`);
    await expect(module.__vitePreload(async () => 'the chunk', ['ignored'])).resolves.toBe('the chunk');
  });

  it('leaves every other module alone', () => {
    expect(load('/src/main.tsx')).toBeUndefined();
  });
});
