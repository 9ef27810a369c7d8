import { defineConditions, defineConfig, type SystemConfig } from '@chakra-ui/react';

/**
 * The card's conditions, utilities and their helpers: those of Chakra's `defaultBaseConfig` (its 104 conditions and
 * 243 utilities, one for nearly every CSS property) that the card's components and recipes resolve, written as
 * Chakra writes them. Creating a system builds every utility and condition it is given, which is most of the start-up
 * work on a phone after the tokens; and `defaultBaseConfig` alone is about 25 KB of the start-up bundle. Nothing warns
 * when a style needs one that is missing (a shorthand becomes an attribute, a condition a selector that never
 * matches): src/system.test.tsx renders every state with Chakra's and checks that this one resolves the same CSS.
 */

// Chakra's own selectors, as `defaultBaseConfig` has them.
const conditions = defineConditions({
  hover: ['@media (hover: hover)', '&:is(:hover, [data-hover]):not(:disabled, [data-disabled])'],
  focusVisible: '&:is(:focus-visible, [data-focus-visible])',
  disabled: '&:is(:disabled, [disabled], [data-disabled], [aria-disabled=true])',
  expanded: '&:is([aria-expanded=true], [data-expanded], [data-state=expanded])',
  invalid: '&:is([data-invalid], [aria-invalid=true], [data-state=invalid])',
  icon: '& :where(svg)',
  dark: '.dark &, .dark .chakra-theme:not(.light) &',
  light: ':root &, .light &',
});

type UtilityConfig = NonNullable<SystemConfig['utilities']>;
type Utility = UtilityConfig[string];
type Styles = ReturnType<NonNullable<Utility['transform']>>;
/** Styles with computed keys (CSS variables, a selector), which Chakra's style types cannot check. */
const styles = (object: Record<string, unknown>) => object as unknown as Styles;
type TransformArgs = Parameters<NonNullable<Utility['transform']>>[1];

const currentBg = { var: '--bg-currentcolor', ref: 'var(--bg-currentcolor)' };
const colorValues: Utility['values'] = (theme) => ({ ...theme('colors'), currentBg });

/** A colour property that takes `token/opacity` (`fg.muted/80`) as a `color-mix()`, as Chakra's colour utilities do. */
const colorMix =
  (property: string) =>
  (value: string, args: TransformArgs): Record<string, string> => {
    const mix = args.utils.colorMix(value);
    if (mix.invalid) return { [property]: value };
    const variable = `--mix-${property}`;
    return { [variable]: mix.value, [property]: `var(${variable}, ${mix.color})` };
  };
const colorUtility = (property: string, shorthand?: string[]): Utility => ({
  values: colorValues,
  transform: (value: string, args: TransformArgs) => styles(colorMix(property)(value, args)),
  shorthand,
});

/** A background that children can refer to as `currentBg`, as Chakra's `background` utility does. */
const background: Utility = {
  values: colorValues,
  shorthand: ['bg'],
  transform(value: string, args: TransformArgs) {
    if (args.raw === currentBg.ref || args.raw === 'currentBg') return { background: currentBg.ref };
    const style = colorMix('background')(value, args);
    return styles({ ...style, [currentBg.var]: style.background });
  },
};

const focusRingSelector = conditions.focusVisible;
const focusRings: Record<string, Record<string, string>> = {
  inside: {
    outlineOffset: '0px',
    outlineWidth: 'var(--focus-ring-width, 1px)',
    outlineColor: 'var(--focus-ring-color)',
    outlineStyle: 'var(--focus-ring-style, solid)',
    borderColor: 'var(--focus-ring-color)',
  },
  outside: {
    outlineWidth: 'var(--focus-ring-width, 2px)',
    outlineOffset: 'var(--focus-ring-offset, 2px)',
    outlineStyle: 'var(--focus-ring-style, solid)',
    outlineColor: 'var(--focus-ring-color)',
  },
  none: { outline: 'none' },
};

const srOnly = {
  position: 'absolute',
  width: '1px',
  height: '1px',
  padding: '0',
  margin: '-1px',
  overflow: 'hidden',
  clip: 'rect(0, 0, 0, 0)',
  whiteSpace: 'nowrap',
  borderWidth: '0',
};

const utilities: UtilityConfig = {
  background,
  color: colorUtility('color'),
  fill: colorUtility('fill'),
  stroke: colorUtility('stroke'),
  borderColor: colorUtility('borderColor'),
  borderBottomColor: colorUtility('borderBottomColor'),
  outlineColor: colorUtility('outlineColor'),
  boxShadowColor: colorUtility('--shadow-color', ['shadowColor']),
  focusRingColor: colorUtility('--focus-ring-color'),
  focusVisibleRing: {
    values: ['outside', 'inside', 'none'],
    transform(value: string, { token }: TransformArgs): Styles {
      const ring = focusRings[value];
      return ring
        ? styles({ '--focus-ring-color': token('colors.colorPalette.focusRing'), [focusRingSelector]: ring })
        : {};
    },
  },
  borderWidth: { values: 'borderWidths' },
  borderBottomWidth: { values: 'borderWidths' },
  borderInlineStartWidth: { values: 'borderWidths', shorthand: ['borderStartWidth'] },
  borderRadius: { values: 'radii', shorthand: ['rounded'] },
  boxShadow: { values: 'shadows', shorthand: ['shadow'] },
  opacity: { values: 'opacity' },
  cursor: { values: 'cursor' },
  animation: { values: 'animations' },
  transitionDuration: { values: 'durations' },
  transitionProperty: {
    values: {
      common: 'background-color, border-color, color, fill, stroke, opacity, box-shadow, translate, transform',
      colors: 'background-color, border-color, color, fill, stroke',
      size: 'width, height',
      position: 'left, right, top, bottom, inset-inline, inset-block',
      background: 'background, background-color, background-image, background-position',
    },
  },
  fontFamily: { values: 'fonts' },
  fontSize: { values: 'fontSizes' },
  fontWeight: { values: 'fontWeights' },
  lineHeight: { values: 'lineHeights' },
  letterSpacing: { values: 'letterSpacings' },
  textDecoration: { shorthand: ['textDecor'] },
  position: { shorthand: ['pos'] },
  bottom: { values: 'spacing' },
  insetInline: { values: 'spacing', shorthand: ['insetX'] },
  flexBasis: { values: 'sizes' },
  flexDirection: { shorthand: ['flexDir'] },
  gap: { values: 'spacing' },
  width: { values: 'sizes', shorthand: ['w'] },
  height: { values: 'sizes', shorthand: ['h'] },
  boxSize: { values: 'sizes', property: 'width', transform: (v: string) => ({ width: v, height: v }) },
  minWidth: { values: 'sizes', shorthand: ['minW'] },
  minHeight: { values: 'sizes', shorthand: ['minH'] },
  maxWidth: { values: 'sizes', shorthand: ['maxW'] },
  marginTop: { values: 'spacing', shorthand: ['mt'] },
  marginInline: { values: 'spacing', shorthand: ['mx', 'marginX'] },
  marginBlock: { values: 'spacing', shorthand: ['my', 'marginY'] },
  marginInlineStart: { values: 'spacing', shorthand: ['ms', 'marginStart'] },
  marginInlineEnd: { values: 'spacing', shorthand: ['me', 'marginEnd'] },
  padding: { values: 'spacing', shorthand: ['p'] },
  paddingInline: { values: 'spacing', shorthand: ['px', 'paddingX'] },
  paddingBlock: { values: 'spacing', shorthand: ['py', 'paddingY'] },
  paddingBottom: { values: 'spacing', shorthand: ['pb'] },
  paddingInlineStart: { values: 'spacing', shorthand: ['ps', 'paddingStart'] },
  srOnly: {
    values: { type: 'boolean' },
    transform: (value: boolean | string) => (value === true || value === 'true' ? styles(srOnly) : {}),
  },
};

export const cardBaseConfig = defineConfig({ conditions, utilities });
