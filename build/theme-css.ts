import type { Plugin } from 'vite';
import { lightDark, type SchemeColor, semanticColors } from '../src/theme.ts';

/** The theme colours index.html's first-paint card reads, by CSS variable. */
const SHELL_COLORS: Record<string, SchemeColor> = {
  '--shell-page': semanticColors.bg.DEFAULT,
  '--shell-bg': semanticColors.bg.panel,
  '--shell-fg': semanticColors.fg.DEFAULT,
  '--shell-border': semanticColors.border.DEFAULT,
  '--shell-accent': semanticColors.accent.solid,
  '--shell-on-accent': semanticColors.accent.contrast,
};

/** The variables as a style sheet; each value follows the `color-scheme` of the element that reads it. */
export function shellColorsCss(): string {
  const declarations = Object.entries(SHELL_COLORS).map(([name, color]) => `${name}:${lightDark(color)}`);
  return `:root{${declarations.join(';')}}`;
}

/**
 * Puts the theme's colours (src/theme.ts) into index.html as CSS variables, so that the card drawn before the
 * JavaScript arrives has the app's colours without a second copy of them.
 */
export function themeCss(): Plugin {
  return {
    name: 'theme-css',
    transformIndexHtml() {
      return [{ tag: 'style', children: shellColorsCss(), injectTo: 'head' }];
    },
  };
}
