import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { OWNER_PAGE_FILE, OWNER_PAGE_PATH } from '../../contract/owner.ts';
import { proxyHarness } from '../../testing/proxy-app.ts';
import { FileCountStore } from '../feedback/count-store.ts';
import { createFeedback } from '../feedback/feedback.ts';
import { precompressDir } from './precompress.ts';

const { start } = await proxyHarness();
const OWNER_PAGE = `<!doctype html><html lang="en"><head><title>Assistant statistics</title></head><body>${'<p>owner</p>'.repeat(200)}</body></html>`;
let folder: string;

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'owner-page-'));
  await writeFile(join(folder, 'index.html'), '<!doctype html><html><head><title>AI Assistant</title></head></html>');
  await writeFile(join(folder, 'owner.html'), OWNER_PAGE);
  // As the build leaves it: owner.html.br and .gz beside it, which no path may serve either.
  expect(await precompressDir(folder)).toBeGreaterThan(0);
});

afterAll(async () => {
  await rm(folder, { recursive: true, force: true });
});

const serverWith = (ownerToken?: string, frameAncestors = ["'self'"]) =>
  start({
    clientDir: folder,
    ownerToken,
    feedback: createFeedback({ store: new FileCountStore(join(folder, 'data')), log: () => {} }),
    security: { frameAncestors, connectSrc: [] },
  });

it('serves the owner page at /owner only with OWNER_TOKEN set, and never as owner.html', async () => {
  const owned = await serverWith('test-owner-token-0123456789abcdef');
  const page = await fetch(owned.url + OWNER_PAGE_PATH);
  expect(page.status).toBe(200);
  expect(page.headers.get('content-type')).toMatch(/^text\/html/);
  expect(await page.text()).toBe(OWNER_PAGE);

  const unowned = await serverWith(undefined);
  expect((await fetch(unowned.url + OWNER_PAGE_PATH)).status).toBe(404);
  for (const url of [owned.url, unowned.url]) {
    for (const file of [OWNER_PAGE_FILE, `${OWNER_PAGE_FILE}.br`, `${OWNER_PAGE_FILE}.gz`]) {
      const response = await fetch(url + file);
      expect(response.status, file).toBe(404);
      expect(await response.text()).not.toContain('<p>owner</p>');
    }
  }
});

it('lets no site frame the owner page, not even those that may frame the chat', async () => {
  const { url } = await serverWith('test-owner-token-0123456789abcdef', ['https://shop.example']);
  const chat = await fetch(`${url}/`);
  expect(chat.headers.get('content-security-policy')).toContain('frame-ancestors https://shop.example');
  const owner = await fetch(url + OWNER_PAGE_PATH);
  expect(owner.status).toBe(200);
  const policy = owner.headers.get('content-security-policy') ?? '';
  expect(policy.match(/frame-ancestors [^;]*/g)).toEqual(["frame-ancestors 'none'"]);
  expect(owner.headers.get('x-frame-options')).toBe('DENY');
});
