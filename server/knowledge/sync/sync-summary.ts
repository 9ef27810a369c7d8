// What a sync did: counted as it goes, and said in one line by the server's log and the command alike.

/** What a sync did, for its summary line and the command's. */
export interface SyncSummary {
  new: number;
  changed: number;
  /** Asked and answered `304`, fetched with the same text (or a file with the same bytes), or skipped by `<lastmod>`. */
  unchanged: { notModified: number; sameText: number; lastmod: number };
  removed: number;
  /** Addresses not taken, counted by reason (`robots.txt`, `another origin`, `HTTP 500`, ...). */
  skipped: Record<string, number>;
  bytes: number;
  ms: number;
  /** The sources that could not be read at all, and why. */
  failed: { source: string; reason: string }[];
}

/** A summary of nothing yet. */
export const emptySummary = (): SyncSummary => ({
  new: 0,
  changed: 0,
  unchanged: { notModified: 0, sameText: 0, lastmod: 0 },
  removed: 0,
  skipped: {},
  bytes: 0,
  ms: 0,
  failed: [],
});

/** The summary's names for why an address was not taken. */
export function reasonKind(reason: string): string {
  const status = /answered (\d{3})/.exec(reason);
  if (status) return `HTTP ${status[1]}`;
  if (reason.startsWith('robots.txt')) return 'robots.txt';
  if (reason.includes('another origin')) return 'another origin';
  if (reason.includes('larger than')) return 'too large';
  if (reason.includes('not HTML')) return 'not HTML';
  if (reason.startsWith('past max_pages')) return 'past max_pages';
  if (reason.startsWith('not a .md')) return 'not a page file';
  return 'error';
}

/** The summary as one line: what the server logs and the command prints last. */
export function summaryLine(summary: SyncSummary): string {
  const { notModified, sameText, lastmod } = summary.unchanged;
  const skipped = Object.entries(summary.skipped)
    .map(([reason, count]) => `${count} ${reason}`)
    .join(', ');
  return (
    `${summary.new} new, ${summary.changed} changed, ${notModified + sameText + lastmod} unchanged ` +
    `(${notModified} by 304, ${sameText} same text, ${lastmod} by <lastmod>), ${summary.removed} removed, ` +
    `skipped: ${skipped || 'none'}; ${(summary.bytes / 1e6).toFixed(1)} MB fetched in ${(summary.ms / 1000).toFixed(1)} s`
  );
}
