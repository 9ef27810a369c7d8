import { createSystem, defaultBaseConfig, defineConfig } from '@chakra-ui/react';
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
export const system = createSystem(
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
