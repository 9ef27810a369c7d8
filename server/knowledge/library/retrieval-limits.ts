/** How much material one answer may be given, and how sure the index must be. */
export interface RetrievalLimits {
  maxPassages: number;
  /** The passages' estimated tokens together. */
  maxTokens: number;
  maxPerPage: number;
  /**
   * The share of the question's rare-word weight (IDF) that a passage must hold. A fixed score threshold cannot tell
   * an off-topic question at 10,000 pages (BM25 grows with the number of words matched); this share can.
   */
  minCoverage: number;
  /**
   * A word in fewer than this share of the passages weighs as one in this share: on a large site, a word that a few
   * passages hold in passing ("Sunday" in a table of date fields) must not outweigh the rest of the question.
   */
  rareShare: number;
  /**
   * A word in under `rareShare` of the passages is one the site uses in passing (a day in a table of date fields, a
   * name among a release's credits): it counts in a passage's text only within this many words (stop words aside) of
   * another of its message's words, or in the passage's title, keywords or headings.
   */
  passingWindow: number;
  /** The most a passage's (or its page's) coverage counts when it holds one of the question's two or more searched words. */
  oneWordCoverage: number;
  /**
   * How much of a passage's coverage is its page's (the weight its page's found passages hold together) rather than its
   * own: 0 is the passage alone, 1 the page alone.
   */
  pageShare: number;
  /**
   * A word in more than this share of the passages, and in more than `commonMinimum` of them, is left out of the
   * search and of the weight: it tells little apart, and MiniSearch would score every passage that holds it.
   */
  commonShare: number;
  commonMinimum: number;
  /**
   * How many passages a site needs for a word that none of them holds to weigh as much as the rarest word; a smaller site
   * weighs it in proportion. On a large site, a visitor's word that no page uses tells that the question is about
   * something else; on a small one it mostly tells that the owner wrote few pages ("policy", "something", "phone").
   */
  absentFullAt: number;
  /** The share of the question's weight that one passage must hold for the question as typed to be enough. */
  confidentCoverage: number;
  /**
   * From how many passages a site is large enough that a visitor's words are rarely its pages' ("put my changes aside"
   * for `git stash`): every question there asks for search words, as the peers that always rewrite do.
   */
  largeSite: number;
  /**
   * A text's distinctive words are its known words weighing at least this share of its rarest one's weight: a page
   * must hold one of the latest message's or of the model's words to answer ("tax return" is not covered by a
   * returns page through "return" alone, a new topic not by the previous question's words).
   */
  distinctShare: number;
  /**
   * A candidate ranking below this share of its lookup's best one is left out: the pages listed under a reply are
   * those it is about, not every page that shares a word with it.
   */
  relativeRank: number;
  /** The most pages a question's passages come from (the Sources a reply can list). */
  maxPages: number;
}

export const RETRIEVAL_LIMITS: RetrievalLimits = {
  maxPassages: 5,
  maxTokens: 1500,
  maxPerPage: 3,
  minCoverage: 0.55,
  rareShare: 0.002,
  passingWindow: 5,
  oneWordCoverage: 0.5,
  pageShare: 0.5,
  commonShare: 0.15,
  commonMinimum: 100,
  absentFullAt: 110,
  confidentCoverage: 0.75,
  largeSite: 1000,
  distinctShare: 0.8,
  relativeRank: 0.35,
  maxPages: 3,
};
