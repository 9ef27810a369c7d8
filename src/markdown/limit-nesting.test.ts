// @vitest-environment node
import { describe, expect, it } from 'vitest';
import { limitNesting, MAX_INLINE_MARKERS, MAX_NESTING } from './limit-nesting';

describe('limitNesting', () => {
  it('escapes the first container marker past the limit, on each line', () => {
    expect(MAX_NESTING).toBe(20);
    expect(limitNesting(`${'>'.repeat(25)} x\n${'> '.repeat(25)}y`)).toBe(
      `${'>'.repeat(20)}\\${'>'.repeat(5)} x\n${'> '.repeat(20)}\\${'> '.repeat(5)}y`,
    );
    expect(limitNesting(`${'- '.repeat(22)}x`)).toBe(`${'- '.repeat(20)}\\${'- '.repeat(2)}x`);
    expect(limitNesting(`${'1. '.repeat(21)}x`)).toBe(`${'1. '.repeat(20)}1\\. x`);
    expect(limitNesting(`${'* '.repeat(21)}x`)).toBe(`${'* '.repeat(20)}\\* x`);
  });

  it('counts indentation as the list levels it could continue', () => {
    expect(limitNesting(`${' '.repeat(36)}- - - x`)).toBe(`${' '.repeat(36)}- - \\- x`);
    expect(limitNesting(`\t\t\t\t\t\t\t\t\t\t- x`)).toBe(`\t\t\t\t\t\t\t\t\t\t\\- x`);
  });

  it('leaves ordinary text, thematic breaks and fenced code alone', () => {
    const ordinary = `> > quoted\n\n- a\n  - b\n\n${'- '.repeat(30)}\n\n${'* '.repeat(30)}\n\n\`\`\`\n${'> '.repeat(30)}x\n\`\`\`\n`;
    expect(limitNesting(ordinary)).toBe(ordinary);
  });

  it('gives up on a block with more inline markers than the parser can take in reasonable time', () => {
    expect(limitNesting('*a* '.repeat(MAX_INLINE_MARKERS / 2))).toBe('*a* '.repeat(MAX_INLINE_MARKERS / 2));
    expect(limitNesting(`${'*a* '.repeat(MAX_INLINE_MARKERS / 2)}_`)).toBeUndefined();
    expect(limitNesting('a\\* '.repeat(MAX_INLINE_MARKERS))).toBeUndefined();
    // Code is not parsed for them.
    const code = `\`\`\`\n${'*'.repeat(MAX_INLINE_MARKERS * 2)}\n\`\`\``;
    expect(limitNesting(code)).toBe(code);
  });
});
