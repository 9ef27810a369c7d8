import { capLine, MAX_LINE_CHARS, type Page } from '../sources/page.ts';

/** One passage of a page: what the index holds and what the model may be given, with where it came from. */
export interface Passage {
  /** Its page's address. */
  page: string;
  /** Where it is: its page's address, with `#id` when its section has an id. */
  url: string;
  title: string;
  /** The headings above the passage, outermost first. */
  headings: string[];
  text: string;
  language: string;
  /** The words its page's owner adds (front matter `keywords:`, `<meta name="keywords">`), indexed like the title. */
  keywords?: string;
  /** Its page's description, on the page's first passage only (see {@link Page.description}). */
  description?: string;
  /** Its estimated size in the model's tokens, its title and headings included, for the material's budget. */
  tokens: number;
}

/** About 300 English words: a passage is long enough to answer from and short enough for five to fit the budget. */
export const MAX_PASSAGE_TOKENS = 400;

const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/gu;

/** The size of a text in a model's tokens, estimated: a Chinese or Japanese character is about one, English four letters. */
export function estimateTokens(text: string): number {
  const wide = text.match(CJK)?.length ?? 0;
  return Math.ceil(wide + (text.length - wide) / 4);
}

/** A paragraph too long for one passage, cut between words (or, in scripts without spaces, between characters). */
function cutParagraph(paragraph: string): string[] {
  const words = /\s/.test(paragraph) ? paragraph.split(/(?<=\s)/) : Array.from(paragraph);
  const pieces: string[] = [];
  let piece = '';
  let tokens = 0;
  for (const word of words) {
    const wordTokens = estimateTokens(word);
    if (piece !== '' && tokens + wordTokens > MAX_PASSAGE_TOKENS) {
      pieces.push(piece.trim());
      piece = '';
      tokens = 0;
    }
    piece += word;
    tokens += wordTokens;
  }
  if (piece.trim() !== '') pieces.push(piece.trim());
  return pieces;
}

/**
 * A page cut along its headings into passages of at most {@link MAX_PASSAGE_TOKENS} of text, whole paragraphs where
 * they fit. Its title and headings are cut to 200 characters each (`capLine`), and counted in each passage's
 * tokens with its address: they are quoted with it. A section id longer than a heading may be (a Markdown heading's
 * slug is as long as the heading) is not linked to: the passage links to its page.
 */
export function chunkPage(page: Page): Passage[] {
  const passages: Passage[] = [];
  const title = capLine(page.title);
  const titleTokens = estimateTokens(title);
  for (const section of page.sections) {
    const id = section.id && section.id.length <= MAX_LINE_CHARS ? section.id : undefined;
    const url = id ? `${page.url.split('#')[0]}#${encodeURIComponent(id)}` : page.url;
    const headings = section.headings.map(capLine);
    const lineTokens = titleTokens + estimateTokens(headings.join(' › ')) + estimateTokens(url);
    const add = (text: string) =>
      passages.push({
        page: page.url,
        url,
        title,
        headings,
        text,
        language: page.language,
        ...(page.keywords ? { keywords: page.keywords } : {}),
        tokens: lineTokens + estimateTokens(text),
      });
    let text = '';
    let tokens = 0;
    for (const paragraph of section.text.split(/\n{2,}/)) {
      const size = estimateTokens(paragraph);
      for (const piece of size > MAX_PASSAGE_TOKENS ? cutParagraph(paragraph) : [paragraph]) {
        const pieceTokens = piece === paragraph ? size : estimateTokens(piece);
        // The blank line between paragraphs is about one token.
        if (text !== '' && tokens + 1 + pieceTokens > MAX_PASSAGE_TOKENS) {
          add(text);
          text = '';
          tokens = 0;
        }
        tokens += (text === '' ? 0 : 1) + pieceTokens;
        text = text === '' ? piece : `${text}\n\n${piece}`;
      }
    }
    if (text.trim() !== '') add(text);
  }
  if (page.description && passages.length > 0) passages[0].description = page.description;
  return passages;
}
