/** A colour as sRGB channels from 0 to 255. */
type Rgb = [number, number, number];

const HEX = /^#([0-9a-f]{3}|[0-9a-f]{6})$/i;
const NUMBER = String.raw`(\d+(?:\.\d+)?)`;
const RGB = new RegExp(String.raw`^rgb\(\s*${NUMBER}[\s,]+${NUMBER}[\s,]+${NUMBER}\s*\)$`, 'i');
const HSL = new RegExp(String.raw`^hsl\(\s*${NUMBER}(?:deg)?[\s,]+${NUMBER}%[\s,]+${NUMBER}%\s*\)$`, 'i');

/** What `accent` may be written as, for messages and the docs. */
export const ACCENT_FORMS = 'a CSS colour written as #rgb, #rrggbb, rgb(r g b) or hsl(h s% l%)';

/** White text on the accent (the user's bubble, Send) must reach WCAG AA for normal text. */
export const MIN_ACCENT_CONTRAST = 4.5;
/**
 * On a dark page a bright patch glares: the dark scheme's shade is the accent darkened until white text on it reaches
 * AAA (or the accent itself when it does already), as the default blue is darker in the dark scheme; but never so dark
 * that it fades into the page (see {@link MIN_CONTROL_CONTRAST}).
 */
export const DARK_ACCENT_CONTRAST = 7;
/** What a control drawn in the accent (Send, the user's bubble, the focus ring) keeps against its background: WCAG 1.4.11. */
export const MIN_CONTROL_CONTRAST = 3;
/** What Send and the user's bubble sit on in the dark scheme (src/theme.ts: the page, the panel). */
const DARK_PAGES = ['#09090b', '#111111'];
/**
 * What the focus ring may be drawn on there: those, and the bot's bubble (a link in a reply). In the light scheme the
 * ring is the accent itself, which white text (and so the white page) reads at 4.5:1.
 */
const DARK_RING_BACKGROUNDS = [...DARK_PAGES, '#27272a'];

function parseColor(text: string): Rgb | undefined {
  const value = text.trim();
  const hex = HEX.exec(value)?.[1];
  if (hex) {
    const full = hex.length === 3 ? [...hex].map((digit) => digit + digit).join('') : hex;
    return [0, 2, 4].map((at) => Number.parseInt(full.slice(at, at + 2), 16)) as Rgb;
  }
  const rgb = RGB.exec(value);
  if (rgb) {
    const channels = rgb.slice(1).map(Number) as Rgb;
    return channels.every((channel) => channel <= 255) ? channels : undefined;
  }
  const hsl = HSL.exec(value);
  if (hsl) {
    const [hue, saturation, lightness] = hsl.slice(1).map(Number);
    if (saturation > 100 || lightness > 100) return undefined;
    return hslToRgb(hue % 360, saturation / 100, lightness / 100);
  }
  return undefined;
}

function hslToRgb(hue: number, saturation: number, lightness: number): Rgb {
  const chroma = saturation * Math.min(lightness, 1 - lightness);
  const channel = (n: number) => {
    const k = (n + hue / 30) % 12;
    return Math.round(255 * (lightness - chroma * Math.max(-1, Math.min(k - 3, 9 - k, 1))));
  };
  return [channel(0), channel(8), channel(4)];
}

/** WCAG 2's relative luminance. */
function luminance([r, g, b]: Rgb): number {
  const linear = (channel: number) => {
    const c = channel / 255;
    return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * linear(r) + 0.7152 * linear(g) + 0.0722 * linear(b);
}

/** The contrast ratio of white text on `color`. */
function whiteContrast(color: Rgb): number {
  return 1.05 / (luminance(color) + 0.05);
}

/** The lowest contrast of `color` against these backgrounds (by default the dark scheme's pages). */
function darkBackgroundContrast(color: Rgb, backgrounds = DARK_PAGES): number {
  const own = luminance(color);
  return Math.min(
    ...backgrounds.map((hex) => {
      const other = luminance(parseColor(hex) as Rgb);
      return (Math.max(own, other) + 0.05) / (Math.min(own, other) + 0.05);
    }),
  );
}

function lighten(color: Rgb, amount: number): Rgb {
  return color.map((channel) => Math.round(channel + (255 - channel) * amount)) as Rgb;
}

function toHex(color: Rgb): string {
  return `#${color.map((channel) => channel.toString(16).padStart(2, '0')).join('')}`;
}

function darken(color: Rgb, amount: number): Rgb {
  return color.map((channel) => Math.round(channel * (1 - amount))) as Rgb;
}

/** The accent in each scheme, as `#rrggbb`: nothing of what the site owner wrote reaches the page but these digits. */
export interface AccentShades {
  light: string;
  dark: string;
  /** The keyboard focus ring in the dark scheme: the accent, lightened until it shows on every dark background. */
  darkRing: string;
}

/** The outcome of {@link readAccent}: the shades, or why the colour is refused. */
export type ReadAccent = { ok: true; shades: AccentShades } | { ok: false; reason: string };

/** Reads a site owner's accent, refusing what cannot be read and what white text on would fall below AA. */
export function readAccent(text: string): ReadAccent {
  const color = parseColor(text);
  if (!color) return { ok: false, reason: `must be ${ACCENT_FORMS}` };
  const contrast = whiteContrast(color);
  if (contrast < MIN_ACCENT_CONTRAST) {
    return {
      ok: false,
      reason: `white text on it has a contrast of ${contrast.toFixed(2)}:1; it must be at least ${MIN_ACCENT_CONTRAST}:1 (choose a darker colour)`,
    };
  }
  return { ok: true, shades: { light: toHex(color), dark: toHex(darkShade(color)), darkRing: toHex(darkRing(color)) } };
}

/**
 * Darkened towards AAA for white text, but kept at 3:1 against the dark page; a dark accent, below that already, is
 * lightened to it instead (white text on it still reads at 4.5:1: any colour at 3:1 against #111111 does).
 */
function darkShade(color: Rgb): Rgb {
  let amount = 0;
  if (darkBackgroundContrast(color) < MIN_CONTROL_CONTRAST) {
    while (darkBackgroundContrast(lighten(color, amount)) < MIN_CONTROL_CONTRAST) amount += 0.01;
    return lighten(color, amount);
  }
  while (
    whiteContrast(darken(color, amount)) < DARK_ACCENT_CONTRAST &&
    darkBackgroundContrast(darken(color, amount + 0.01)) >= MIN_CONTROL_CONTRAST
  ) {
    amount += 0.01;
  }
  return darken(color, amount);
}

/** The dark scheme's ring: the accent, lightened until it stands out at 3:1 on the page and on the bot's bubble. */
function darkRing(color: Rgb): Rgb {
  let amount = 0;
  while (darkBackgroundContrast(lighten(color, amount), DARK_RING_BACKGROUNDS) < MIN_CONTROL_CONTRAST) amount += 0.01;
  return lighten(color, amount);
}

/** The lowest contrast of a `#rrggbb` shade against the dark scheme's pages, and its bot bubble with `ring` (tests). */
export function darkBackgroundContrastOf(hex: string, ring = false): number {
  const color = parseColor(hex);
  if (!color) throw new Error(`Not a colour: ${hex}`);
  return darkBackgroundContrast(color, ring ? DARK_RING_BACKGROUNDS : DARK_PAGES);
}

/** The contrast of white text on a `#rrggbb` shade (for tests and the docs' examples). */
export function whiteContrastOf(hex: string): number {
  const color = parseColor(hex);
  if (!color) throw new Error(`Not a colour: ${hex}`);
  return whiteContrast(color);
}
