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
        tokens,
        semanticTokens,
        textStyles,
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
