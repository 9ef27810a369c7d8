import { createSystem, defaultBaseConfig, defineConfig } from '@chakra-ui/react';
import {
  breakpoints,
  buttonRecipe,
  cardSlotRecipe,
  globalCss,
  headingRecipe,
  inputRecipe,
  semanticTokens,
  tokens,
} from '@chakra-ui/react/theme';

// Only the recipes the card uses: `defaultSystem` carries all of them (about 70 KB of gzip JavaScript).
export const system = createSystem(
  defaultBaseConfig,
  defineConfig({
    globalCss,
    theme: {
      breakpoints,
      tokens,
      semanticTokens,
      recipes: { button: buttonRecipe, heading: headingRecipe, input: inputRecipe },
      slotRecipes: { card: cardSlotRecipe },
    },
  }),
);
