import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { withoutDescriptions } from './machine-descriptions';

describe("the build's machines without their descriptions", () => {
  it('drops every description of the chat machine and nothing else', () => {
    const source = readFileSync(new URL('../machines/chat-machine.ts', import.meta.url), 'utf8');
    const stripped = withoutDescriptions(source);
    expect(source.match(/\bdescription:/g)?.length).toBeGreaterThanOrEqual(4);
    expect(stripped).not.toMatch(/\bdescription:/);
    // Everything else is there, line for line apart from the descriptions' own.
    const words = (text: string) =>
      text.replace(/\bdescription:[\s\S]*?(?=\b(?:always|on|after|exit):|})/g, '').match(/[\w.#]+/g);
    expect(words(stripped)).toEqual(words(source));
  });

  it('takes single, double and joined strings, inline or on their own lines', () => {
    expect(withoutDescriptions(`a: { description: 'It\\'s "x"', on: {} }`)).toBe(`a: {  on: {} }`);
    expect(withoutDescriptions(`slow: { description: "Still no first piece." },`)).toBe(`slow: { },`);
    expect(withoutDescriptions(`b: {\n  description:\n    'one ' +\n    "two",\n  always: [],\n}`)).toBe(
      `b: {\n  \n  always: [],\n}`,
    );
  });
});
