import { createServer } from 'vite';
import { appResolve } from './app-resolve.ts';
import { chakraTokens } from './chakra-tokens.ts';

// Run by build/prerender-card.ts in a process of its own: prints the idle card's HTML (src/prerender-card.tsx). In its
// own process, React and its server renderer load together, in production mode, whatever the building process has
// loaded already (a test that runs the build, say).

const server = await createServer({
  configFile: false,
  envDir: false,
  logLevel: 'warn',
  plugins: [chakraTokens()],
  resolve: appResolve,
  appType: 'custom',
  server: { middlewareMode: true, hmr: false, ws: false },
  optimizeDeps: { noDiscovery: true, include: [] },
});
try {
  const { renderIdleCard } = (await server.ssrLoadModule('/src/prerender-card.tsx')) as {
    renderIdleCard: () => string;
  };
  process.stdout.write(renderIdleCard());
} finally {
  await server.close();
}
