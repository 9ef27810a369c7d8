import type { RecipeDefinition } from '@chakra-ui/react';
import { buttonRecipe, inputRecipe, textStyles, tokens } from '@chakra-ui/react/theme';
import type { Plugin } from 'vite';

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
} as const satisfies Partial<Record<keyof typeof tokens, readonly string[]>>;

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
export function cardTokens() {
  return Object.fromEntries(
    Object.entries(CARD_TOKENS).map(([group, names]) => {
      const all = tokens[group as keyof typeof CARD_TOKENS] as Record<string, unknown>;
      return [group, pick(all, names)];
    }),
  );
}

/** The card's text styles: Chakra's default ones that `CARD_TEXT_STYLES` names. */
export function cardTextStyles() {
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
export function cardRecipes() {
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
    load(id) {
      if (id !== RESOLVED_ID) return null;
      return [
        `export const cardTokens = ${JSON.stringify(cardTokens())};`,
        `export const cardTextStyles = ${JSON.stringify(cardTextStyles())};`,
        `export const cardRecipes = ${JSON.stringify(cardRecipes())};`,
      ].join('\n');
    },
  };
}
