import { tokens } from '@chakra-ui/react/theme';
import type { Plugin } from 'vite';

const MODULE_ID = 'virtual:chakra-tokens';
const RESOLVED_ID = `\0${MODULE_ID}`;

/**
 * The tokens the card's components, recipes and text styles resolve, by group: every other token costs start-up work
 * (the token dictionary and its CSS variables are most of what creating the system costs on a phone). Every colour
 * and shadow is the theme's (src/theme.ts). A missing one leaves its raw value with no warning (`p="3.5"` becomes
 * `padding: 3.5`, which the browser drops): src/system.test.tsx renders every state and fails on any difference from
 * the tokens kept before.
 */
const CARD_TOKENS = {
  cursor: ['button'],
  durations: ['moderate'],
  fonts: ['body', 'heading', 'mono'],
  fontSizes: ['xs', 'sm', 'md', 'lg'],
  fontWeights: ['medium', 'semibold'],
  radii: ['xs', 'sm', 'md', 'lg', 'full'],
  sizes: ['2', '3.5', '4', '5', '6', '8', '9', '10', 'xs', 'lg', 'full'],
  spacing: ['1', '2', '3', '3.5', '4', '5', '14'],
} as const satisfies Partial<Record<keyof typeof tokens, readonly string[]>>;

/** The card's tokens: Chakra's default ones, with their values, that `CARD_TOKENS` names. */
export function cardTokens() {
  return Object.fromEntries(
    Object.entries(CARD_TOKENS).map(([group, names]) => {
      const all = tokens[group as keyof typeof CARD_TOKENS] as Record<string, unknown>;
      return [group, Object.fromEntries(names.map((name) => [name, all[name]]))];
    }),
  );
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
