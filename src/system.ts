import { createSystem, defaultBaseConfig, defineConfig, type SystemContext } from '@chakra-ui/react';
import {
  breakpoints,
  buttonRecipe,
  cssVarsPrefix,
  cssVarsRoot,
  globalCss,
  headingRecipe,
  inputRecipe,
  semanticTokens,
  textStyles,
  tokens,
} from '@chakra-ui/react/theme';

/**
 * Chakra's default tokens minus those the card never resolves. Every token costs start-up work (the token dictionary,
 * its CSS variables), which is most of what creating the system costs on a phone.
 */
const cardTokens = (() => {
  const { aspectRatios, animations, blurs, zIndex, sizes, ...used } = tokens;
  // Fractions (`1/2`) and viewport units (`dvh`) are not used; the numeric and named sizes are (recipes, `maxW`).
  const usedSizes = Object.fromEntries(Object.entries(sizes ?? {}).filter(([name]) => !/\/|v[hw]$/.test(name)));
  return { ...used, sizes: usedSizes };
})();

// Chakra's default theme minus the recipes this card does not use: `defaultSystem` carries all of them (about
// 70 KB of gzip JavaScript), which would be most of the page's weight.
const createCardSystem = () =>
  createSystem(
    defaultBaseConfig,
    defineConfig({
      preflight: true,
      cssVarsPrefix,
      cssVarsRoot,
      globalCss,
      theme: {
        breakpoints,
        tokens: cardTokens,
        semanticTokens,
        textStyles,
        // Of the layer styles, the recipes here use only `disabled` (for disabled inputs and buttons).
        layerStyles: { disabled: { value: { opacity: '0.5', cursor: 'not-allowed' } } },
        recipes: { button: buttonRecipe, heading: headingRecipe, input: inputRecipe },
      },
    }),
  );

let system: SystemContext | undefined;

/**
 * The card's Chakra system, created on first use rather than when the module loads. Creating it (token dictionary,
 * utilities, conditions) is the largest single piece of start-up work, about a quarter of a second on a mid-range
 * phone; run from the first render, it is a task of its own instead of lengthening the one that evaluates the bundle.
 */
export function getSystem(): SystemContext {
  system ??= createCardSystem();
  return system;
}
