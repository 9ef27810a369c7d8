import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LANGUAGES, type Language, pageFileName } from '../../locales/languages.ts';
import { proxyHarness } from '../../testing/proxy-app.ts';
import { DEFAULT_ASSISTANT_CONFIG } from '../settings/assistant-config.ts';
import { pageLanguage } from './page-language.ts';
import { precompressDir } from './precompress.ts';

// Each built page names its language, and is large enough to be served precompressed like the real ones.
const page = (language: string) => `<!doctype html><html lang="${language}">${'<p>card</p>'.repeat(200)}</html>`;

let clientDir: string;
const { start } = await proxyHarness();
const serve = async (language?: Language) =>
  (await start({ clientDir, assistant: { ...DEFAULT_ASSISTANT_CONFIG, language } })).url;

beforeAll(async () => {
  clientDir = await mkdtemp(join(tmpdir(), 'page-language-'));
  for (const language of LANGUAGES) await writeFile(join(clientDir, pageFileName(language)), page(language));
  await precompressDir(clientDir);
});

afterAll(async () => {
  await rm(clientDir, { recursive: true, force: true });
});

async function servedLanguage(url: string, acceptLanguage?: string) {
  const response = await fetch(url, { headers: acceptLanguage ? { 'accept-language': acceptLanguage } : {} });
  expect(response.status).toBe(200);
  expect(response.headers.get('vary')).toContain('Accept-Language');
  return /<html lang="([^"]+)">/.exec(await response.text())?.[1];
}

describe('the page in the visitor’s language', () => {
  it('follows the browser’s languages in order, by base language, else English', async () => {
    const url = await serve();
    expect(await servedLanguage(`${url}/`)).toBe('en');
    expect(await servedLanguage(`${url}/`, 'de-AT,de;q=0.9,en;q=0.8')).toBe('de');
    expect(await servedLanguage(`${url}/`, 'xx, he;q=0.5, ar;q=0.7')).toBe('ar');
    expect(await servedLanguage(`${url}/`, 'zh-TW, pt;q=0.9')).toBe('pt-BR');
    expect(await servedLanguage(`${url}/`, 'xx, tlh')).toBe('en');
    // The built pages' own names are the page too, in the visitor's language: never a template as it was built.
    expect(await servedLanguage(`${url}/index.html`, 'de')).toBe('de');
    expect(await servedLanguage(`${url}/index.ja.html`, 'nl')).toBe('nl');
  });

  it('puts the asked-for language (the embed’s data-lang) before the browser’s, unless it has no catalogue', async () => {
    const url = await serve();
    expect(await servedLanguage(`${url}/?embed=https://shop.example&lang=ar`, 'de')).toBe('ar');
    expect(await servedLanguage(`${url}/?lang=xx`, 'ja')).toBe('ja');
    expect(await servedLanguage(`${url}/?lang=xx`)).toBe('en');
  });

  it('puts the site’s configured language after the asked-for one and before the browser’s', async () => {
    const url = await serve('fr');
    expect(await servedLanguage(`${url}/`, 'de')).toBe('fr');
    expect(await servedLanguage(`${url}/?lang=nl`, 'de')).toBe('nl');
  });

  it('reads only the first ten tags, each of up to 35 characters', () => {
    const eleven = `${Array.from({ length: 10 }, (_, i) => `x${i}`).join(', ')}, de`;
    expect(pageLanguage({ acceptLanguage: eleven })).toBe('en');
    expect(pageLanguage({ acceptLanguage: `${'x'.repeat(36)}, nl` })).toBe('nl');
    expect(pageLanguage({ acceptLanguage: `de-${'a'.repeat(40)}, fr` })).toBe('fr');
    expect(pageLanguage({ asked: `de-${'a'.repeat(40)}`, acceptLanguage: 'it' })).toBe('it');
  });

  it('costs no more than three ordinary requests for an Accept-Language as long as Node takes (16 KB)', async () => {
    const url = await serve();
    // Well-formed tags without a catalogue, each a fresh one to look up; all the headers must fit in Node's 16 KB.
    const letters = 'abcdefghijklmnopqrstuvwxyz';
    const tags = [...letters].flatMap((a) => [...letters].map((b) => `k${a}${b}-Latn-KE;q=0.5`));
    const hostile = tags.join(',').slice(0, 15 * 1024);
    const ordinary = 'de-AT,de;q=0.9,en;q=0.8';
    // The server's time per request, by the process's own CPU clock; the two kinds alternate, so that whatever else
    // the machine does falls on both alike. The body is read and dropped (no brotli here: none is asked for).
    const cost = async (acceptLanguage: string) => {
      const started = process.cpuUsage();
      const response = await fetch(`${url}/`, { headers: { 'accept-language': acceptLanguage } });
      await response.arrayBuffer();
      expect(response.status).toBe(200);
      const used = process.cpuUsage(started);
      return used.user + used.system;
    };
    for (let i = 0; i < 20; i++) await Promise.all([cost(ordinary), cost(hostile)]);
    let ordinaryTotal = 0;
    let hostileTotal = 0;
    for (let i = 0; i < 200; i++) {
      ordinaryTotal += await cost(ordinary);
      hostileTotal += await cost(hostile);
    }
    expect(hostileTotal / ordinaryTotal).toBeLessThanOrEqual(3);
  });

  it('serves each page precompressed', async () => {
    const url = await serve();
    const response = await fetch(`${url}/`, { headers: { 'accept-language': 'pl', 'accept-encoding': 'br' } });
    expect(response.headers.get('content-encoding')).toBe('br');
    expect(await response.text()).toBe(page('pl'));
  });

  it('is chosen in that order by pageLanguage', () => {
    expect(pageLanguage({ asked: 'he-IL', configured: 'fr', acceptLanguage: 'de' })).toBe('he');
    expect(pageLanguage({ asked: null, configured: 'es-MX', acceptLanguage: 'de' })).toBe('es');
    expect(pageLanguage({ configured: 'xx', acceptLanguage: 'it-CH' })).toBe('it');
    expect(pageLanguage({})).toBe('en');
  });
});
