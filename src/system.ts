import { cardRecipes, cardTextStyles, cardTokens } from 'virtual:chakra-theme';
import { createSystem, defineConfig, defineGlobalStyles, type SystemContext } from '@chakra-ui/react';
import { breakpoints, cssVarsPrefix, cssVarsRoot } from '@chakra-ui/react/theme';
import { cardBaseConfig } from './card-base-config';
import { CREATE_SYSTEM_MEASURE } from './create-system-measure';
import { semanticColors, semanticShadows } from './theme';

/**
 * Chakra's global styles minus the two dozen variables behind its `filter`, `backdropFilter` and `ring` utilities,
 * which nothing here uses: set on every element (`*`), they cost style work on each one and bytes in the bundle.
 */
const cardGlobalCss = defineGlobalStyles({
  '*': {
    fontFeatureSettings: '"cv11"',
    '--global-font-mono': 'fonts.mono',
    '--global-font-body': 'fonts.body',
    '--global-color-border': 'colors.border',
  },
  html: { color: 'fg', bg: 'bg', lineHeight: '1.5', colorPalette: 'neutral' },
  '*::placeholder, *[data-placeholder]': { color: 'fg.muted/80' },
  '*::selection': { bg: 'colorPalette.emphasized/80' },
});

/**
 * Chakra's default theme minus the recipes this card does not use: `defaultSystem` carries all of them, which would be
 * most of the page's weight. Exported for src/system.test.tsx, which checks the card's base config against Chakra's.
 */
export const cardThemeConfig = defineConfig({
  preflight: true,
  cssVarsPrefix,
  cssVarsRoot,
  globalCss: cardGlobalCss,
  theme: {
    breakpoints,
    tokens: cardTokens,
    semanticTokens: {
      colors: semanticColors,
      shadows: semanticShadows,
      // Chakra's radii for its recipes' corners.
      radii: { l1: { value: '{radii.xs}' }, l2: { value: '{radii.sm}' }, l3: { value: '{radii.md}' } },
    },
    // The text styles of the button and input recipes' sizes and of `textStyle="lg"` (build/chakra-theme.ts).
    textStyles: cardTextStyles,
    // Of the layer styles, the recipes here use only `disabled` (for disabled inputs and buttons).
    layerStyles: { disabled: { value: { opacity: '0.5', cursor: 'not-allowed' } } },
    // Chakra's button and input recipes with the sizes and variants the card uses (build/chakra-theme.ts).
    recipes: cardRecipes,
  },
});

const createCardSystem = () => createSystem(cardBaseConfig, cardThemeConfig);

let system: SystemContext | undefined;

/**
 * The card's Chakra system, created on first use rather than when the module loads. Creating it (token dictionary,
 * utilities, conditions) is the largest single piece of start-up work on a phone: src/main.tsx gives it a task of its
 * own, between the one that evaluates the bundle and React's take-over of the card.
 */
export function getSystem(): SystemContext {
  if (!system) {
    const start = performance.now();
    system = createCardSystem();
    // For the bench (bench/browser.ts), which reports how long creating it takes on a slow phone.
    performance.measure(CREATE_SYSTEM_MEASURE, { start });
  }
  return system;
}
