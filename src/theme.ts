// Every colour the card, a reply and the embed's launcher show, with its light and dark value: the one place a colour
// is written (a test keeps colour literals and raw palette names out of every other file). Plain data, so that the
// embed loader, which must not bring Chakra, reads the same values as the app's Chakra system (src/system.ts).

import { ACCENT_RING_VARIABLE, ACCENT_VARIABLE } from '../contract/page-settings.ts';

// Chakra UI 3.37's default shades (MIT) of the palettes used here.
const black = '#09090B';
const white = '#FFFFFF';
const gray50 = '#fafafa';
const gray100 = '#f4f4f5';
const gray200 = '#e4e4e7';
const gray300 = '#d4d4d8';
const gray400 = '#a1a1aa';
const gray500 = '#71717a';
const gray600 = '#52525b';
const gray700 = '#3f3f46';
const gray800 = '#27272a';
const gray900 = '#18181b';
const gray950 = '#111111';
const blue300 = '#a3cfff';
const blue400 = '#60a5fa';
const blue600 = '#2563eb';
const blue700 = '#173da6';
const blue900 = '#14204a';

/** A colour in each scheme, in the shape of a Chakra semantic token. */
export interface SchemeColor {
  value: { _light: string; _dark: string };
}

const scheme = (light: string, dark: string): SchemeColor => ({ value: { _light: light, _dark: dark } });

/** A colour as CSS that follows the element's `color-scheme`, for what is drawn without Chakra. */
export const lightDark = ({ value }: SchemeColor) => `light-dark(${value._light},${value._dark})`;

// Their translucent shades, for shadows (opacity in the fourth byte: 10%, 30%, 60%, 64%).
const gray900a10 = '#18181b1a';
const gray900a30 = '#18181b4d';
const gray300a30 = '#d4d4d84d';
const blackA30 = '#09090B4d';
const blackA60 = '#09090B99';
const blackA64 = '#09090Ba3';

// ACCENT_VARIABLE: what the site's `accent` sets (server/page-html.ts). Unset, the user's bubble, Send and the launcher
// are the spec's blue, dark enough in both schemes for white text to pass AA. In the dark scheme, the dark shade a site
// whose `accent` is that blue gets (server/pages/accent.ts): white text on it at 6.2:1, and 3:1 against the dark page
// and panel (WCAG 1.4.11), which a darker blue (blue.700, 2.0:1) would fade into.
export const DEFAULT_DARK_ACCENT = '#2158d1';
const accentLight = `var(${ACCENT_VARIABLE},${blue600})`;
const accentDark = `var(${ACCENT_VARIABLE},${DEFAULT_DARK_ACCENT})`;
const accent = scheme(accentLight, accentDark);
// Calls marked pure: a bundle that uses neither shade nor shadow (the embed loader, on its byte budget) then keeps no
// trace of them, where a bare template literal would stay, as the minifier counts it as a side effect.
const darker = (color: string) => `color-mix(in srgb,${color} 85%,${black})`;
/** Hovered: darker, where Chakra's default (the accent at 90% over the page) would leave white text below AA. */
const accentHover = scheme(/* @__PURE__ */ darker(accentLight), /* @__PURE__ */ darker(accentDark));
const onAccent = scheme(white, white);
/**
 * Keyboard focus: at least 3:1 against the page and the bubbles in both schemes; with a site's `accent`, a shade of it
 * that keeps that (server/pages/accent.ts).
 */
const focusRing = scheme(`var(${ACCENT_RING_VARIABLE},${blue600})`, `var(${ACCENT_RING_VARIABLE},${blue400})`);

/** The embed launcher's colours (embed/loader.ts), drawn on the host page without Chakra. */
export const launcherColors = {
  bg: accent,
  fg: onAccent,
  /** The focus outline, with a halo of the opposite tone so it shows on any host page. */
  ring: scheme(blue900, blue300),
  halo: scheme(white, black),
  /** The panel behind the frame while the app loads. */
  panel: scheme(white, gray950),
  shadow: scheme(blackA30, blackA60),
} satisfies Record<string, SchemeColor>;

/**
 * The semantic colours. Chakra's own (`bg`, `fg`, `border`, and what its button and input recipes read through
 * `colorPalette`) keep the values of Chakra's defaults, only those the card's recipes and variants read; the rest are
 * the card's.
 */
export const semanticColors = {
  bg: {
    DEFAULT: scheme(white, black),
    panel: scheme(white, gray950),
  },
  fg: {
    DEFAULT: scheme(black, gray50),
    muted: scheme(gray600, gray400),
  },
  border: { DEFAULT: scheme(gray200, gray800) },
  /** The neutral palette (`colorPalette` on the page): ghost, outline and surface buttons, the input, selections. */
  neutral: {
    fg: scheme(gray800, gray200),
    subtle: scheme(gray100, gray900),
    muted: scheme(gray200, gray800),
    emphasized: scheme(gray300, gray700),
    focusRing,
    border: scheme(gray200, gray800),
  },
  /** The one brand colour: the user's bubble, and Send (`colorPalette="accent"`). */
  accent: { solid: accent, hover: accentHover, contrast: onAccent, focusRing },
  focusRing: { DEFAULT: focusRing },
  /** The bot's bubble and its text. */
  bot: { DEFAULT: scheme(gray100, gray800), fg: scheme(gray900, gray100) },
  /** What a Markdown reply shows inside the bot's bubble. */
  reply: {
    link: scheme(blue700, blue300),
    inlineCode: scheme(gray200, gray700),
    quote: scheme(gray700, gray300),
    /** The quote's bar, rules and table borders. */
    rule: scheme(gray400, gray500),
    /** The typing indicator's dots. */
    dot: scheme(gray600, gray400),
  },
  codeBlock: {
    bg: scheme(gray900, gray950),
    fg: scheme(gray50, gray50),
    header: scheme(gray800, gray900),
    hover: scheme(gray700, gray800),
  },
};

/** Chakra's default shadows (MIT) for the sizes the card uses, light and dark. */
const shadow = (offset: string) =>
  scheme(
    `0px ${offset} ${gray900a10}, 0px 0px 1px ${gray900a30}`,
    `0px ${offset} ${blackA64}, 0px 0px 1px inset ${gray300a30}`,
  );
export const semanticShadows = { sm: /* @__PURE__ */ shadow('2px 4px'), md: /* @__PURE__ */ shadow('4px 8px') };
