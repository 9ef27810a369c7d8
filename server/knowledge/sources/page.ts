/** A run of a page's text under one heading path (`['Install', 'From npm']`), before it is cut into passages. */
export interface Section {
  headings: string[];
  text: string;
  /** Its heading's id, when the page gives one, so that a link can go to the section itself (`address#id`). */
  id?: string;
}

/** One page of the site as the index reads it: its address, title, language and main text along its headings. */
export interface Page {
  url: string;
  title: string;
  /** A BCP 47 tag (`en`, `ja`, `pt-BR`): it chooses the stop words, the stemmer or the segmenter. */
  language: string;
  sections: Section[];
  /** Words the owner adds to the page (front matter `keywords:`, `<meta name="keywords">`), indexed like its title. */
  keywords?: string;
  /**
   * What the page says it is about (front matter `description:`, `<meta name="description">`), one line of at most
   * {@link MAX_DESCRIPTION_CHARS}: the home page's tells the model that gives search words what the site is about.
   */
  description?: string;
}

/** What a file or a fetched page says about itself; the source fills in what it leaves out. */
export interface PageDraft {
  /** The front matter's or `<title>`'s, else the first heading. */
  title?: string;
  /** The front matter's `url:` or the `<link rel="canonical">`, as written (it may be relative). */
  url?: string;
  language?: string;
  sections: Section[];
  keywords?: string;
  description?: string;
}

/**
 * The version of how pages are read and cut into passages (html-extractor.ts, markdown-page.ts, chunk.ts): raise it
 * with a change to what a stored page would hold. Every stored page's hash carries it (`readingHash`), and a sync
 * reads again, whole, each page stored under another version, even one that a `304`, a `<lastmod>` or an unchanged
 * file would keep (server/knowledge/sync/sync.ts): an upgrade's better reading reaches every page, once.
 */
export const PAGE_READING = 2;

/** A page's hash (of its text, or of its file's bytes) as the store keeps it: with the reading it was made under. */
export const readingHash = (digest: string) => `${PAGE_READING}.${digest}`;

/** Whether a stored hash was made under this version's reading (hashes from before versions have no dot). */
export const readThisWay = (textHash: string) => textHash.startsWith(`${PAGE_READING}.`);

/** Whether `address` is one the assistant may show as a link: `http:` or `https:` only. */
export function isWebAddress(address: string): boolean {
  try {
    const { protocol } = new URL(address);
    return protocol === 'http:' || protocol === 'https:';
  } catch {
    return false;
  }
}

/**
 * Collapses every run of white space to one space: a title or heading is one line of text. Every line break counts,
 * U+0085 (NEL) included, which `\s` leaves out (U+2028 and U+2029 it holds), and so does every other control
 * character, C0 (U+0000 to U+001F, U+007F) and C1 (U+0080 to U+009F): a report prints titles as they are, and a
 * terminal obeys them.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding them is its job.
export const oneLine = (text: string) => text.replace(/[\s\x00-\x1f\x7f-\x9f]+/g, ' ').trim();

/** The longest title or heading the index keeps: a page's own name, not a place to stuff words for the model. */
export const MAX_LINE_CHARS = 200;

/** The longest page description kept: as long as the `description:` an owner may write in the configuration. */
export const MAX_DESCRIPTION_CHARS = 300;

/** A page's description as one line of at most {@link MAX_DESCRIPTION_CHARS}, or nothing when it has none. */
export function pageDescription(text: string | undefined): { description?: string } {
  const line = oneLine(text ?? '');
  if (line === '') return {};
  const cut = line.slice(0, MAX_DESCRIPTION_CHARS);
  return { description: /[\uD800-\uDBFF]$/.test(cut) ? cut.slice(0, -1) : cut };
}

/** `text` cut to {@link MAX_LINE_CHARS}, with an ellipsis when cut (never between the two halves of a character). */
export function capLine(text: string): string {
  if (text.length <= MAX_LINE_CHARS) return text;
  const cut = text.slice(0, MAX_LINE_CHARS - 1);
  return `${/[\uD800-\uDBFF]$/.test(cut) ? cut.slice(0, -1) : cut}…`;
}

/** Builds sections as a document is read: a heading at `level` closes the section before it. */
export class SectionWriter {
  readonly sections: Section[] = [];
  private path: string[] = [];
  private id: string | undefined;
  private parts: string[] = [];
  firstHeading: string | undefined;

  /** A heading at `level` (1 to 6), with the id a link to it takes (`#id`), when the page gives one. */
  heading(level: number, text: string, id?: string): void {
    this.flush();
    const heading = oneLine(text);
    if (heading === '') return;
    this.firstHeading ??= heading;
    this.path = [...this.path.slice(0, level - 1), heading];
    this.id = id || undefined;
  }

  paragraph(text: string): void {
    const trimmed = text.trim();
    if (trimmed !== '') this.parts.push(trimmed);
  }

  /** The sections so far; a heading with no text of its own adds none (its path lives on in the next one's). */
  finish(): Section[] {
    this.flush();
    return this.sections;
  }

  private flush(): void {
    if (this.parts.length > 0) {
      const { id } = this;
      this.sections.push({ headings: this.path.filter(Boolean), text: this.parts.join('\n\n'), ...(id ? { id } : {}) });
    }
    this.parts = [];
  }
}
