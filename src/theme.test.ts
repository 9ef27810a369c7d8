// @vitest-environment node
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  darkBackgroundContrastOf,
  MIN_ACCENT_CONTRAST,
  MIN_CONTROL_CONTRAST,
  readAccent,
  whiteContrastOf,
} from '../server/pages/accent';
import { DEFAULT_DARK_ACCENT, semanticColors } from './theme';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
/** The one file allowed to write a colour, and this test's own examples. */
const EXEMPT = ['src/theme.ts', 'src/theme.test.ts'];

const COLOR_LITERALS: [string, RegExp][] = [
  ['hex colour', /(?<![\w&])#(?:[0-9a-f]{8}|[0-9a-f]{6}|[0-9a-f]{3,4})(?![\w-])/gi],
  ['colour function', /\b(?:rgba?|hsla?|hwb|lab|lch|oklab|oklch|color)\(/gi],
  [
    'palette name with a shade',
    /\b(?:gray|grey|red|orange|yellow|green|teal|blue|cyan|purple|pink|white|black|whiteAlpha|blackAlpha)\.\d{2,3}\b/g,
  ],
  [
    'named colour',
    /(?<=['"`:]\s*)(?:white|black|gr[ae]y|red|orange|yellow|green|teal|blue|cyan|purple|pink|silver|navy)(?=\s*['"`;},!])/gi,
  ],
];

function filesUnder(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { recursive: true, encoding: 'utf8' })
    .filter((name) => /\.(tsx?|html|css)$/.test(name))
    .map((name) => join(dir, name));
}

/** Each colour literal in `text`, as `kind: match`. */
function colorLiterals(text: string): string[] {
  return COLOR_LITERALS.flatMap(([kind, pattern]) =>
    [...text.matchAll(pattern)].map((match) => `${kind}: ${match[0]}`),
  );
}

describe('colours', () => {
  it('finds the literals it is meant to find', () => {
    expect(colorLiterals("bg: '#fff', c: 'rgb(0 0 0)', p: 'blue.600', n: 'white'; color: black;")).toEqual([
      'hex colour: #fff',
      'colour function: rgb(',
      'palette name with a shade: blue.600',
      'named colour: white',
      'named colour: black',
    ]);
    expect(colorLiterals("bg: 'bot', color: 'accent.contrast', id: '#root', text: 'white space'")).toEqual([]);
  });

  it('are written only in the theme file: none in src/, embed/ or index.html', () => {
    const files = [...filesUnder('src'), ...filesUnder('embed'), 'index.html'].filter((file) => !EXEMPT.includes(file));
    expect(files.length).toBeGreaterThan(20);
    const found = files.flatMap((file) =>
      colorLiterals(readFileSync(join(ROOT, file), 'utf8')).map(
        (literal) => `${relative(ROOT, join(ROOT, file))}: ${literal}`,
      ),
    );
    expect(found).toEqual([]);
  });
});

describe('the default accent', () => {
  it("is, in the dark scheme, the shade a site whose accent is the spec's blue gets: 3:1 on the dark page", () => {
    const { _light, _dark } = semanticColors.accent.solid.value;
    const fallback = (value: string) => /,\s*(#[0-9a-f]{6})\)$/i.exec(value)?.[1] ?? '';
    const shades = readAccent(fallback(_light));
    if (!shades.ok) throw new Error(shades.reason);
    expect(fallback(_dark)).toBe(DEFAULT_DARK_ACCENT);
    expect(DEFAULT_DARK_ACCENT).toBe(shades.shades.dark);
    expect(darkBackgroundContrastOf(DEFAULT_DARK_ACCENT)).toBeGreaterThanOrEqual(MIN_CONTROL_CONTRAST);
    expect(whiteContrastOf(DEFAULT_DARK_ACCENT)).toBeGreaterThanOrEqual(MIN_ACCENT_CONTRAST);
  });
});
