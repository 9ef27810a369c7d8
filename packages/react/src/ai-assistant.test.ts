// On a server: no `window`, no `document`. Importing the component must not touch them, and rendering it (in
// StrictMode, with every prop) outputs nothing: the launcher is drawn by the loader in the browser, after hydration.
import { createElement, StrictMode } from 'react';
import { renderToStaticMarkup, renderToString } from 'react-dom/server';
import { describe, expect, it } from 'vitest';

describe('AIAssistant on the server', () => {
  it('imports and renders to nothing, touching no browser global', async () => {
    expect(typeof window).toBe('undefined');
    expect(typeof document).toBe('undefined');
    const { AIAssistant } = await import('./ai-assistant.ts');
    const element = createElement(
      StrictMode,
      null,
      createElement(AIAssistant, {
        src: 'https://www.example.com/assistant/',
        position: 'left',
        offsetBottom: 80,
        offsetSide: 24,
        label: 'Ask us',
        theme: 'dark',
        lang: 'de',
        defaultOpen: true,
        onEvent: () => undefined,
        ref: { current: null },
      }),
    );

    expect(renderToString(element)).toBe('');
    expect(renderToStaticMarkup(element)).toBe('');
  });
});
