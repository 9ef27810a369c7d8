import { describe, expect, it } from 'vitest';
import { healPartialBlock, type ReplyBlocks, splitBlocks } from './stream-blocks';

describe('splitBlocks', () => {
  it('cuts at a blank line followed by an unindented line', () => {
    const text = 'First paragraph\nstill first.\n\n- a list\n- item\n\nLast';
    expect(splitBlocks(text)).toMatchObject({
      source: text,
      finished: ['First paragraph\nstill first.\n\n', '- a list\n- item\n\n'],
      tail: 'Last',
    });
  });

  it('does not cut before an indented line (a list item or code continues) or inside a code fence', () => {
    const text = '1. item\n\n   more of it\n\n```\ncode\n\nmore code\n```\n\n~~~~\n```\n\nx\n~~~~\n';
    expect(splitBlocks(text).finished).toEqual(['1. item\n\n   more of it\n\n', '```\ncode\n\nmore code\n```\n\n']);
    expect(splitBlocks(text).tail).toBe('~~~~\n```\n\nx\n~~~~\n');
  });

  it('waits for the first character of the next line before finishing a block', () => {
    expect(splitBlocks('Para\n\n').finished).toEqual([]);
    expect(splitBlocks('Para\n\nN').finished).toEqual(['Para\n\n']);
  });

  it('treats a line of inline code (backticks in the info string) as no fence', () => {
    expect(splitBlocks('``` a ` b\n\nNext').finished).toEqual(['``` a ` b\n\n']);
  });

  it('gives the same blocks piece by piece as at once, keeping finished blocks and scanning only the tail', () => {
    const text =
      'Intro **bold**.\n\n```ts\nconst a = 1;\n\nconst b = 2;\n```\n\n| a | b |\n| - | - |\n| 1 | 2 |\n\nEnd.';
    let blocks = splitBlocks('');
    const seen: string[][] = [];
    for (let end = 1; end <= text.length; end += 3) {
      const next = splitBlocks(text.slice(0, end), blocks);
      // A finished block never changes as more arrives.
      expect(next.finished.slice(0, blocks.finished.length)).toEqual(blocks.finished);
      blocks = next;
      seen.push(blocks.finished);
    }
    const { scanned: _, ...whole } = splitBlocks(text);
    expect(splitBlocks(text, blocks)).toMatchObject(whole);
    expect(seen.at(-1)?.length).toBe(3);
  });

  it('starts again when the text is not a continuation (a retried reply)', () => {
    const first = splitBlocks('One\n\nTwo');
    expect(splitBlocks('Other\n\nThree', first)).toEqual(splitBlocks('Other\n\nThree'));
  });

  it('reads only the new piece and the line it continues, however long the reply already is', () => {
    // A long code block (one block: the tail grows with it), then paragraphs with a table: every piece of every kind.
    const line = 'const value = compute(a, b); // a line of code\n';
    const text = `Intro.\n\n\`\`\`ts\n${line.repeat(400)}\`\`\`\n\n${'Some *text* here.\n'.repeat(200)}\n| a | b |\n| - | - |\n${'| 1 | 2 |\n'.repeat(200)}`;
    const piece = 7;
    const longestLine = Math.max(...text.split('\n').map((each) => each.length + 1));
    let blocks = splitBlocks('');
    let scanned = 0;
    for (let end = piece; end < text.length + piece; end += piece) {
      blocks = splitBlocks(text.slice(0, end), blocks);
      // Per piece: at most the piece and the line it continues; never the block or the reply so far.
      expect(blocks.scanned).toBeLessThanOrEqual(piece + longestLine);
      scanned += blocks.scanned;
      // Healing reads what the scan left: its result is the same as healing the block from scratch.
      expect(heal(blocks)).toBe(heal(splitBlocks(blocks.source)));
    }
    // In all, each character was read about once: the work grows with the reply, not with its square.
    expect(scanned).toBeLessThan(text.length * 2 + (text.length / piece) * longestLine);
    expect(text.length).toBeGreaterThan(20_000);
  });
});

/** A streamed text as it shows: its finished blocks, then its last block made presentable. */
const heal = (blocks: ReplyBlocks) => blocks.finished.join('') + healPartialBlock(blocks);

describe('healPartialBlock', () => {
  it.each([
    ['an unclosed strong', 'This is **very', 'This is **very**'],
    ['an unclosed emphasis', 'This is *very', 'This is *very*'],
    ['an unclosed underscore emphasis', 'This is _very', 'This is _very_'],
    ['an unclosed strikethrough', 'This is ~~old', 'This is ~~old~~'],
    ['strong and emphasis', '**bold *both', '**bold *both***'],
    ['a marker with nothing after it yet', 'Then **', 'Then'],
    ['half a closing marker', 'A **bold*', 'A **bold**'],
    ['an unclosed code span', 'Run `npm i', 'Run `npm i`'],
    ['stars inside a code span', 'Run `a ** b` and', 'Run `a ** b` and'],
    ['a link whose URL is arriving', 'See [the docs](https://exa', 'See the docs'],
    ['a link whose text is arriving', 'See [the do', 'See the do'],
    ['a link before its URL', 'See [the docs]', 'See the docs'],
    ['an image whose URL is arriving', 'A ![chart](https://x', 'A chart'],
    ['a complete link', 'See [docs](https://example.com)', 'See [docs](https://example.com)'],
    ['a list marker is not emphasis', '* item with *em', '* item with *em*'],
    ['snake_case is not emphasis', 'call my_function', 'call my_function'],
    ['an open code fence runs to the end', '```ts\nconst a = **', '```ts\nconst a = **'],
    ['the start of a closing fence', '```ts\nconst a = 1;\n``', '```ts\nconst a = 1;\n'],
    ['a table before its delimiter row', 'Compare:\n\n| a | b |', 'Compare:\n\n'],
    ['a table right under a line', 'Compare:\n| a | b |', 'Compare:'],
    ['a table after a line that is not one', '| a | b |\nnot a row', '| a | b |\nnot a row'],
    ['a table with its delimiter row', '| a | b |\n| - | - |\n| 1', '| a | b |\n| - | - |\n| 1'],
    ['a table with half its delimiter row', 'Compare:\n\n| a | b |\n| -', 'Compare:\n\n'],
    ['a fence being opened', 'Code:\n```j', 'Code:\n```j'],
  ])('%s', (_name, partial, healed) => {
    expect(heal(splitBlocks(partial))).toBe(healed);
  });
});
