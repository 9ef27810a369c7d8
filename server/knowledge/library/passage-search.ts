// The full-text index of the passages: MiniSearch, with its index written and read back term by term. MiniSearch's own
// JSON is one object per term keyed by passage number, parsed and loaded in one piece (0.8 s holding the thread at
// 10,000 pages, more than a chat may wait); adding the passages again makes a lookup in its tree for every word of
// every passage (5.9 s). A kept index here is read a line at a time, in slices: 0.3 to 0.5 s at 10,000 pages.
import MiniSearch, { type Options } from 'minisearch';
import { ruleLanguage } from './tokenize.ts';

/** A passage as MiniSearch holds it: each field already cut into the terms of the passage's language. */
export interface IndexedPassage {
  id: number;
  title: string;
  keywords: string;
  headings: string;
  text: string;
  /** The rule language of the passage, so that a search can keep to one language's passages. */
  language: string;
}

/** A page's title (and the keywords its owner adds, as synonyms of it) and headings count above its body text. */
const FIELD_BOOST = { title: 3, keywords: 3, headings: 2, text: 1 };

/** Terms are cut before MiniSearch sees them (per language), so it only splits on the spaces that join them. */
const splitTerms = (text: string) => text.split(' ');
const keepTerm = (term: string) => term || null;

/** The options every index is built, loaded and searched with: the same for adding and searching. */
const SEARCH_OPTIONS: Options<IndexedPassage> = {
  fields: ['title', 'keywords', 'headings', 'text'],
  tokenize: splitTerms,
  processTerm: keepTerm,
  storeFields: ['language'],
  searchOptions: { boost: FIELD_BOOST, prefix: false, fuzzy: false, combineWith: 'OR' },
};

/** A term's line: the term, in how many passages it occurs, then each field's number and its `[passage, count, …]`. */
type TermLine = [term: string, passages: number, ...fields: (number | number[])[]];

/**
 * The passages' search index. Passage `n` is document `n`, added in order (MiniSearch numbers its documents the same
 * way), so a kept index names passages by number and loads over the same list of passages.
 */
export class PassageSearch extends MiniSearch<IndexedPassage> {
  constructor() {
    super(SEARCH_OPTIONS);
  }

  /**
   * The index as lines of JSON: how many passages and their fields' average lengths; each passage's field lengths;
   * then each term with `documentFrequency`'s count of it and its passages by field.
   */
  *lines(documentFrequency: ReadonlyMap<string, number>): Generator<string> {
    yield JSON.stringify({ passages: this._documentCount, averageFieldLength: this._avgFieldLength });
    for (let id = 0; id < this._documentCount; id++) yield JSON.stringify(this._fieldLength.get(id));
    for (const [term, fields] of this._index) {
      const line: TermLine = [term, documentFrequency.get(term) ?? 0];
      for (const [field, counts] of fields) line.push(field, [...counts].flat());
      yield JSON.stringify(line);
    }
  }

  /**
   * The index that {@link lines} wrote (from `lines[from]` on), over `passages`, with each term's count of passages
   * put in `documentFrequency`. It calls `slice` after each line, and throws when the lines hold another number of
   * passages.
   */
  static async fromLines(
    lines: readonly string[],
    from: number,
    passages: readonly { language: string }[],
    documentFrequency: Map<string, number>,
    slice: () => Promise<void> | undefined,
  ): Promise<PassageSearch> {
    const search = new PassageSearch();
    const head = JSON.parse(lines[from]) as { passages: number; averageFieldLength: number[] };
    if (head.passages !== passages.length) throw new Error('the kept index does not match the passages');
    search._avgFieldLength = head.averageFieldLength;
    for (const [id, passage] of passages.entries()) {
      search._documentIds.set(id, id);
      search._idToShortId.set(id, id);
      search._fieldLength.set(id, JSON.parse(lines[from + 1 + id]) as number[]);
      search._storedFields.set(id, { language: ruleLanguage(passage.language) });
      await slice();
    }
    search._documentCount = search._nextId = passages.length;
    for (let at = from + 1 + passages.length; at < lines.length; at++) {
      const [term, count, ...fields] = JSON.parse(lines[at]) as TermLine;
      const data = new Map<number, Map<number, number>>();
      for (let n = 0; n < fields.length; n += 2) {
        const flat = fields[n + 1] as number[];
        const counts = new Map<number, number>();
        for (let i = 0; i < flat.length; i += 2) counts.set(flat[i], flat[i + 1]);
        data.set(fields[n] as number, counts);
      }
      search._index.set(term, data);
      documentFrequency.set(term, count);
      await slice();
    }
    return search;
  }
}
