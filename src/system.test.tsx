import { isDeepStrictEqual } from 'node:util';
import type { RecipeDefinition, SystemContext } from '@chakra-ui/react';
import { buttonRecipe, inputRecipe } from '@chakra-ui/react/theme';
import { act, fireEvent, render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { DEFAULT_PAGE_SETTINGS } from '../contract/page-settings';
import { CATALOGUES } from '../locales/catalogues';
import { chatMachine, ReplyLimitedError } from '../machines/chat-machine';
import { createControllableFetchReply } from '../testing/controllable-reply';
import { App } from './app';
import { EmbeddedCard } from './embed/embedded-card';
import { loadMarkdown } from './markdown/load-markdown';
import { cardThemeConfig } from './system';
import { setCatalogue } from './text';

/**
 * Every style object the card's components hand Chakra while the tests below render it, the styles of the recipes'
 * variants they use included (a recipe's variant resolves to a style object that goes the same way); and each recipe
 * they use, with the variant props it is given.
 */
const { recorded, recipeUses, systems } = vi.hoisted(() => ({
  recorded: [] as unknown[][],
  recipeUses: [] as [string, Record<string, unknown>][],
  systems: {} as { full?: SystemContext },
}));

// The card as it was styled before its own base config: Chakra's `defaultBaseConfig` (every utility and condition it
// knows) under the card's theme, with the tokens and text styles it kept then and Chakra's whole button and input
// recipes. The app renders with it, recording what it resolves; the card's own system must resolve all of it to the
// same CSS.
vi.mock('./system', async (importOriginal) => {
  const original = await importOriginal<typeof import('./system')>();
  const { createSystem: create, defaultBaseConfig: base } = await import('@chakra-ui/react');
  const { tokens, textStyles, buttonRecipe, inputRecipe } = await import('@chakra-ui/react/theme');
  // The tokens the card kept before: Chakra's, minus its palette and a few groups, and fractions and viewport sizes.
  const { aspectRatios, animations, blurs, colors, zIndex, sizes, ...kept } = tokens;
  const keptSizes = Object.fromEntries(Object.entries(sizes ?? {}).filter(([name]) => !/\/|v[hw]$/.test(name)));
  const full = create(base, original.cardThemeConfig, {
    theme: {
      tokens: { ...kept, sizes: keptSizes },
      textStyles,
      recipes: { button: buttonRecipe, input: inputRecipe },
    },
  });
  systems.full = full;
  const recording: SystemContext = {
    ...full,
    css: ((...styles: unknown[]) => {
      recorded.push(styles);
      return (full.css as (...args: unknown[]) => unknown)(...styles);
    }) as SystemContext['css'],
    getRecipeFn: ((key: string) => {
      const recipe = full.getRecipeFn(key);
      const using = (props: Record<string, unknown>) => {
        recipeUses.push([key, props]);
        return recipe(props);
      };
      return Object.assign(using, recipe);
    }) as SystemContext['getRecipeFn'],
  };
  return { ...original, getSystem: () => recording };
});

/** The card's own system (src/system.ts), past the mock above. */
async function cardSystem(): Promise<SystemContext> {
  const actual = await vi.importActual<typeof import('./system')>('./system');
  return actual.getSystem();
}

const MARKDOWN = [
  '# Title',
  'Some **bold**, *italic*, ~~old~~, `code` and [a link](https://example.com/).',
  '- one\n- two\n  1. nested',
  '> quoted',
  '```ts\nconst x = 1;\n```',
  '| a | b |\n| - | :-: |\n| 1 | 2 |',
  '- [x] done',
  '---',
].join('\n\n');

/** The embedded card's host page, which hears nothing here. */
const host = { send: () => undefined, listen: () => () => undefined };

function renderCard(language: keyof typeof CATALOGUES, settings: object, embedded: boolean) {
  setCatalogue(CATALOGUES[language]);
  const fake = createControllableFetchReply();
  const view = render(
    <div dir={language === 'ar' ? 'rtl' : 'ltr'} className={language === 'ar' ? 'dark' : 'light'}>
      <App
        logic={chatMachine.provide({
          actors: { fetchReply: fake.logic },
          delays: { slowHint: 10, replyTimeout: 60_000, limitWait: 60_000 },
        })}
        settings={{ ...DEFAULT_PAGE_SETTINGS, ...settings }}
        {...(embedded ? { card: <EmbeddedCard host={host} /> } : {})}
      />
    </div>,
  );
  return { fake, view, user: userEvent.setup({ delay: null }) };
}

/**
 * Every state of the card: idle with a welcome and starters, hovered and focused, sending with the slow hint,
 * streaming, a Markdown reply copied, stopped, failed with Retry, limited, scrolled back with Jump to latest.
 */
async function renderEveryState(language: keyof typeof CATALOGUES, embedded = false) {
  const { fake, view, user } = renderCard(language, { welcome: MARKDOWN, starters: ['What do you sell?'] }, embedded);
  const input = () => screen.getByRole('textbox');
  await user.hover(screen.getAllByRole('button')[0]);
  await user.type(input(), 'Hello{Enter}');
  await screen.findByTestId('typing-indicator');
  await screen.findByText(CATALOGUES[language].slowHint);
  await act(async () => fake.latest().delta('Some **bold** and `code`'));
  await act(async () => fake.latest().resolve(MARKDOWN));
  await user.click(screen.getAllByRole('button', { name: CATALOGUES[language].copyReply })[0]);
  await user.type(input(), 'Again{Enter}');
  await act(async () => fake.latest().delta('Partial'));
  await user.keyboard('{Escape}');
  await user.type(input(), 'Fail{Enter}');
  await act(async () => fake.latest().reject(new Error('provider failure')));
  await user.tab();
  await user.type(input(), 'Limited{Enter}');
  await act(async () => fake.latest().reject(new ReplyLimitedError('rate', 42)));
  // Scrolled back from the end (jsdom lays nothing out: the list's positions are set by hand): Jump to latest.
  const log = screen.getByRole('log');
  Object.defineProperties(log, { scrollTop: { value: 100 }, scrollHeight: { value: 1000 } });
  fireEvent.scroll(log);
  await screen.findByRole('button', { name: CATALOGUES[language].jumpToLatest });
  view.unmount();
}

describe("the card's Chakra system", () => {
  let card: SystemContext;
  let full: SystemContext;
  beforeAll(async () => {
    await loadMarkdown();
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    await renderEveryState('en');
    await renderEveryState('ar');
    await renderEveryState('en', true);
    card = await cardSystem();
    full = systems.full as SystemContext;
  });
  afterAll(() => setCatalogue(CATALOGUES.en));

  it('has recorded the styles of every state', () => {
    expect(recorded.length).toBeGreaterThan(50);
  });

  it('resolves every style the components use exactly as Chakra’s full base config does', () => {
    const differing = recorded.filter((styles) => {
      const expected = JSON.stringify(full.css(...(styles as Parameters<SystemContext['css']>)));
      return JSON.stringify(card.css(...(styles as Parameters<SystemContext['css']>))) !== expected;
    });
    expect(differing.map((styles) => JSON.stringify(styles))).toEqual([]);
  });

  it('keeps every size and variant of a recipe that the card renders, as Chakra has it', () => {
    const chakraRecipes: Record<string, RecipeDefinition> = { button: buttonRecipe, input: inputRecipe };
    const cardRecipes = cardThemeConfig.theme?.recipes ?? {};
    expect(new Set(recipeUses.map(([key]) => key))).toEqual(new Set(Object.keys(chakraRecipes)));
    const differing = new Set<string>();
    for (const [key, props] of recipeUses) {
      const chakra = chakraRecipes[key];
      for (const variant of Object.keys(chakra.variants ?? {})) {
        const option = String(props[variant] ?? chakra.defaultVariants?.[variant]);
        const kept = cardRecipes[key]?.variants?.[variant]?.[option];
        if (!isDeepStrictEqual(kept, chakra.variants?.[variant]?.[option]))
          differing.add(`${key} ${variant}=${option}`);
      }
    }
    expect([...differing]).toEqual([]);
    for (const [key, chakra] of Object.entries(chakraRecipes)) {
      expect({ ...cardRecipes[key], variants: undefined }).toEqual({ ...chakra, variants: undefined });
    }
  });

  it('has the same preflight and global CSS, and its token CSS defines every variable its CSS uses', () => {
    expect(card.getPreflightCss()).toEqual(full.getPreflightCss());
    expect(card.getGlobalCss()).toEqual(full.getGlobalCss());
    const cssOfEveryState = JSON.stringify([
      ...recorded.map((styles) => card.css(...(styles as Parameters<SystemContext['css']>))),
      card.getGlobalCss(),
    ]);
    const tokenCss = JSON.stringify(card.getTokenCss());
    const fullTokenCss = JSON.stringify(full.getTokenCss());
    // A variable is defined by the token CSS, or by the styles themselves (`colorPalette` sets `--chakra-colors-
    // color-palette-*` where it is used). Chakra escapes a dot in a token's name (`--chakra-spacing-3\\.5`), as
    // both strings here do.
    const used = new Set(
      [cssOfEveryState, tokenCss].flatMap((css) => css.match(/var\(--chakra-[^,)]+/g) ?? []).map((ref) => ref.slice(4)),
    );
    const undefinedVariables = [...used].filter(
      (variable) => !tokenCss.includes(`"${variable}":`) && !cssOfEveryState.includes(`"${variable}":`),
    );
    expect(undefinedVariables).toEqual([]);
    // Each variable it defines has the value Chakra's defines.
    for (const [, name, value] of tokenCss.matchAll(/"(--chakra-[^"]+)":("[^"]*")/g)) {
      expect(fullTokenCss).toContain(`"${name}":${value}`);
    }
  });
});
