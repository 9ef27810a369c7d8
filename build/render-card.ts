import { createServer } from 'vite';
import type { Catalogue } from '../locales/catalogue.ts';
import { CATALOGUES } from '../locales/catalogues.ts';
import { appResolve } from './app-resolve.ts';
import { chakraTheme } from './chakra-theme.ts';

// Run by build/prerender-card.ts in a process of its own: prints the idle card's HTML in every language
// (src/prerender-card.tsx), as JSON by language. In its own process, React and its server renderer load together, in
// production mode, whatever the building process has loaded already (a test that runs the build, say).

const server = await createServer({
  configFile: false,
  envDir: false,
  logLevel: 'warn',
  plugins: [chakraTheme()],
  resolve: appResolve,
  appType: 'custom',
  server: { middlewareMode: true, hmr: false, ws: false },
  optimizeDeps: { noDiscovery: true, include: [] },
});
try {
  const { renderIdleCard } = (await server.ssrLoadModule('/src/prerender-card.tsx')) as {
    renderIdleCard: (catalogue: Catalogue) => string;
  };
  const cards = Object.fromEntries(
    Object.entries(CATALOGUES).map(([language, catalogue]) => [language, renderIdleCard(catalogue)]),
  );
  process.stdout.write(JSON.stringify(cards));
} finally {
  await server.close();
}
