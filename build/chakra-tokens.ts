import { tokens } from '@chakra-ui/react/theme';
import type { Plugin } from 'vite';

const MODULE_ID = 'virtual:chakra-tokens';
const RESOLVED_ID = `\0${MODULE_ID}`;

/**
 * Chakra's default tokens minus those the card never resolves, and minus its palette: every colour is the theme's
 * (src/theme.ts). Every token costs start-up work (the token dictionary, its CSS variables), which is most of what
 * creating the system costs on a phone.
 */
export function cardTokens() {
  const { aspectRatios, animations, blurs, colors, zIndex, sizes, ...used } = tokens;
  // Fractions (`1/2`) and viewport units (`dvh`) are not used; the numeric and named sizes are (recipes, `maxW`).
  const usedSizes = Object.fromEntries(Object.entries(sizes ?? {}).filter(([name]) => !/\/|v[hw]$/.test(name)));
  return { ...used, sizes: usedSizes };
}

/**
 * Serves `virtual:chakra-tokens`: the card's tokens, picked at build time from Chakra's public `tokens` export. Picked
 * in the bundle instead, they would bring the whole export with them, Chakra's full palette included (about 1 KB of
 * gzip on the first paint).
 */
export function chakraTokens(): Plugin {
  return {
    name: 'chakra-tokens',
    resolveId(source) {
      return source === MODULE_ID ? RESOLVED_ID : null;
    },
    load(id) {
      return id === RESOLVED_ID ? `export const cardTokens = ${JSON.stringify(cardTokens())};` : null;
    },
  };
}
