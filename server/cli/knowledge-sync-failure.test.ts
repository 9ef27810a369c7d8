// `npm run knowledge -- sync` when a source fails: a deploy that runs it before the servers start must see it.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { knowledgeCommand } from '../../testing/knowledge-command.ts';
import { type KnowledgeSite, sitemapXml, sitePage, startKnowledgeSite } from '../../testing/knowledge-site.ts';
import { type PostgresServer, startPostgresServer } from '../../testing/postgres-server.ts';
import { storeHomes } from '../../testing/store-homes.ts';
import type { StoreSettings } from '../knowledge/knowledge.ts';

let postgres: PostgresServer;
let site: KnowledgeSite;
let dir: string;
const SITEMAP_DOWN = { body: 'Service unavailable', status: 503 };

beforeAll(async () => {
  postgres = await startPostgresServer();
  site = await startKnowledgeSite({ '/robots.txt': { type: 'text/plain', body: '' } });
  site.set('/hours', {
    body: sitePage({ title: 'Hours', body: `<h1>Hours</h1><p>${'Open at eight. '.repeat(30)}</p>` }),
  });
  dir = await mkdtemp(join(tmpdir(), 'knowledge-sync-failure-'));
  await writeFile(join(dir, 'guide.md'), '# Tyres\nWe fit tubeless tyres while you wait.\n');
  await writeFile(
    join(dir, 'assistant.config.yaml'),
    `knowledge:\n  - path: ${dir}\n    url: https://bikes.example/guide/\n  - sitemap: ${site.origin}/sitemap.xml\n`,
  );
}, 60_000);
afterAll(async () => {
  await site?.close();
  await postgres?.remove();
  await rm(dir, { recursive: true, force: true });
});

/** `npm run knowledge -- <args>` with this test's site file, once it has ended (see testing/knowledge-command.ts). */
const knowledge = (args: string[], settings: StoreSettings) => knowledgeCommand(dir, args, settings).done;

describe.each(storeHomes(() => postgres))('a sync on %s with a source that fails', (_home, makeSettings) => {
  it('exits 1 naming it, keeps its pages only when it has some, and the report says when it last succeeded', async () => {
    const settings = await makeSettings();
    const sitemap = `${site.origin}/sitemap.xml`;
    site.set('/sitemap.xml', SITEMAP_DOWN);
    const never = await knowledge(['sync'], settings);
    expect(never.code).toBe(1);
    expect(never.stderr).toMatch(new RegExp(`^\\[knowledge\\] 1 of 2 sources failed: ${sitemap} \\(.*503.*\\)\\n$`));
    // It has no pages to keep.
    expect(never.stdout).toContain(`[knowledge] ${sitemap} was not read: `);
    expect(never.stdout).not.toContain('its pages are kept');
    const neverReport = await knowledge(['report'], settings);
    expect(neverReport.stdout).toMatch(
      new RegExp(`\\n${sitemap}: last attempt \\d{4}-\\S+ failed: .*503.*; last success never\\n`),
    );

    site.set('/sitemap.xml', { type: 'application/xml', body: sitemapXml([`${site.origin}/hours`]) });
    const ok = await knowledge(['sync'], settings);
    expect(ok.stderr).toBe('');
    expect(ok.code).toBe(0);
    const okReport = await knowledge(['report'], settings);
    const synced = new RegExp(`\\n${sitemap}: ok, synced (\\d{4}-\\S+)\\n`).exec(okReport.stdout)?.[1];
    expect(synced).toBeDefined();

    site.set('/sitemap.xml', SITEMAP_DOWN);
    const again = await knowledge(['sync'], settings);
    expect(again.code).toBe(1);
    expect(again.stdout).toContain(`[knowledge] ${sitemap} was not read (its pages are kept): `);
    const report = await knowledge(['report'], settings);
    expect(report.stdout).toMatch(
      new RegExp(`\\n${sitemap}: last attempt \\d{4}-\\S+ failed: .*503.*; last success ${synced}\\n`),
    );
    expect(report.stdout).toContain(`\n${dir}: ok, synced `);
    const json = JSON.parse((await knowledge(['report', '--json'], settings)).stdout);
    expect(json.sources.find((source: { source: string }) => source.source === sitemap)).toMatchObject({
      state: expect.stringMatching(/^failed: /),
      lastSuccess: synced,
    });
  }, 150_000);
});
