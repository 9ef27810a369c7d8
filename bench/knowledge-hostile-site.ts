// The hostile bench's site (see knowledge-hostile.ts), served from a child process of its own: its bodies (tens of MB)
// and the work of sending them count neither in the measured server's RSS nor on its event loop. It sends its origin
// when it listens; the message `edition` with a text rewrites every ordinary page (a sync then finds them changed).
import { sitemapXml, sitePage, startKnowledgeSite } from '../testing/knowledge-site.ts';

export const ORDINARY = 1_000;

/** The 20 pathological pages: each kind that once stalled or exhausted the server, four of each. */
function pathological(): Record<string, { body: string | Uint8Array }> {
  let word = 0;
  const kinds: Record<string, () => string | Uint8Array> = {
    deep: () => `<html><body>${'<div>'.repeat(2_000)}deep${'</div>'.repeat(2_000)}</body></html>`,
    flat: () => `<html><body>${'<i>x</i>'.repeat(240_000)}</body></html>`,
    unique: () =>
      `<html><body><p>${Array.from({ length: 200_000 }, () => `w${(word++).toString(36)}`).join(' ')}</p></body></html>`,
    stuffed: () =>
      sitePage({ title: 'price delivery hours '.repeat(90_000), body: '<p>999 euros, wire transfer only.</p>' }),
    binary: () => Uint8Array.from({ length: 500_000 }, (_, n) => (n * 7919) % 256),
  };
  return Object.fromEntries(
    Object.entries(kinds).flatMap(([kind, make]) => [1, 2, 3, 4].map((n) => [`/bad/${kind}-${n}`, { body: make() }])),
  );
}

if (process.send) {
  const bad = pathological();
  const site = await startKnowledgeSite(bad);
  const ordinary = Array.from({ length: ORDINARY }, (_, n) => `/page-${n}`);
  const writePages = (edition: string) => {
    for (const [n, path] of ordinary.entries())
      site.set(path, {
        body: sitePage({
          title: `Page ${n}`,
          body: `<h1>Topic ${n}</h1><p>${`Deliveries for topic ${n} take two days, and the shop opens at nine. `.repeat(20)} ${edition}</p>`,
        }),
      });
  };
  writePages('First edition.');
  const locations = [...Object.keys(bad), ...ordinary].map((path) => site.origin + path);
  site.set('/sitemap.xml', { type: 'application/xml', body: sitemapXml(locations) });
  process.on('message', (edition: string) => {
    writePages(edition);
    process.send?.({ edition });
  });
  process.on('disconnect', () => void site.close());
  process.send({ origin: site.origin, pages: locations.length });
}
