import type { RecipeDefinition } from '@chakra-ui/react';
import type * as ChakraThemeExports from '@chakra-ui/react/theme';
import type { Plugin } from 'vite';

/** Chakra's theme exports, imported only when the virtual module is loaded: the import alone takes 2 s of Node's time. */
type ChakraTheme = Pick<typeof ChakraThemeExports, 'buttonRecipe' | 'inputRecipe' | 'textStyles' | 'tokens'>;

const MODULE_ID = 'virtual:chakra-theme';
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
} as const satisfies Partial<Record<keyof ChakraTheme['tokens'], readonly string[]>>;

/** The text styles of the button and input recipes' sizes kept below, and the heading's `textStyle="lg"`. */
const CARD_TEXT_STYLES = ['xs', 'sm', 'md', 'lg'] as const;

/**
 * The sizes and variants of Chakra's button and input recipes that the card's controls ask for (`size`, `variant`,
 * the defaults `md`, `solid` and `outline` included): the others are never resolved, and each is bytes on the first
 * paint. A missing one would leave a control with the recipe's base styles only: src/system.test.tsx fails on any
 * size or variant the card renders that is not kept here as Chakra has it.
 */
const CARD_RECIPE_VARIANTS = {
  button: { size: ['2xs', 'sm', 'md'], variant: ['solid', 'surface', 'outline', 'ghost'] },
  input: { size: ['md'], variant: ['outline'] },
} as const;

function pick<T extends object, K extends keyof T>(all: T, names: readonly K[]): Pick<T, K> {
  return Object.fromEntries(names.map((name) => [name, all[name]])) as Pick<T, K>;
}

/** The card's tokens: Chakra's default ones, with their values, that `CARD_TOKENS` names. */
export function cardTokens({ tokens }: ChakraTheme) {
  return Object.fromEntries(
    Object.entries(CARD_TOKENS).map(([group, names]) => {
      const all = tokens[group as keyof typeof CARD_TOKENS] as Record<string, unknown>;
      return [group, pick(all, names)];
    }),
  );
}

/** The card's text styles: Chakra's default ones that `CARD_TEXT_STYLES` names. */
export function cardTextStyles({ textStyles }: ChakraTheme) {
  return pick(textStyles, CARD_TEXT_STYLES);
}

/** Chakra's recipe with only the options of each variant that `kept` names. */
function withVariants(recipe: RecipeDefinition, kept: Record<string, readonly string[]>): RecipeDefinition {
  const variants = recipe.variants ?? {};
  return {
    ...recipe,
    variants: Object.fromEntries(
      Object.entries(kept).map(([variant, names]) => [variant, pick(variants[variant], names)]),
    ),
  };
}

/** The card's recipes: Chakra's button and input with the sizes and variants that `CARD_RECIPE_VARIANTS` names. */
export function cardRecipes({ buttonRecipe, inputRecipe }: ChakraTheme) {
  return {
    button: withVariants(buttonRecipe, CARD_RECIPE_VARIANTS.button),
    input: withVariants(inputRecipe, CARD_RECIPE_VARIANTS.input),
  };
}

/**
 * Serves `virtual:chakra-theme`: the card's tokens, text styles and recipes, picked at build time from Chakra's public
 * `tokens`, `textStyles` and recipe exports. Picked in the bundle instead, they would bring the whole exports with
 * them: Chakra's full palette (about 1 KB of gzip on the first paint), every text style, every size and variant.
 */
export function chakraTheme(): Plugin {
  return {
    name: 'chakra-theme',
    resolveId(source) {
      return source === MODULE_ID ? RESOLVED_ID : null;
    },
    async load(id) {
      if (id !== RESOLVED_ID) return null;
      // Imported here, not with this file: loading the project's config (every `vite` command, `vite preview` and the
      // test runner included) then costs nothing for a theme that only a build or a dev page asks for.
      const theme = await import('@chakra-ui/react/theme');
      return [
        `export const cardTokens = ${JSON.stringify(cardTokens(theme))};`,
        `export const cardTextStyles = ${JSON.stringify(cardTextStyles(theme))};`,
        `export const cardRecipes = ${JSON.stringify(cardRecipes(theme))};`,
      ].join('\n');
    },
  };
}
