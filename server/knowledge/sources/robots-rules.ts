import robotsParser from 'robots-parser';
import { type Allowed, cappedBody, type FetchLimits, fetchWithin, type Route } from './crawl-fetch.ts';

/** RFC 9309 §2.5: a crawler parses at least the first 500 KiB; what follows is not read. */
export const ROBOTS_MAX_BYTES = 500 * 1024;
/** Rules kept from one file; the rest are left out with a log line. */
export const MAX_ROBOTS_RULES = 5000;
/** A rule's longest path; a path in a sitemap is under 2,048 characters. */
export const MAX_RULE_LENGTH = 2048;
/**
 * Matching a rule costs about (its characters after its first `*`) × (the path's length): the characters after a
 * first `*` that one file's rules may hold together, and one rule alone, so that checking an address stays a few
 * milliseconds whatever the file says.
 */
export const MAX_WILDCARD_TAIL = 4096;
const MAX_RULE_WILDCARD_TAIL = 256;

const RULE = /^\s*(allow|disallow)\s*:\s*([^#]*)/i;

/**
 * The file with its costly rules made safe: a rule too long, or whose wildcards would cost too much to match, is
 * refused; a refused `Disallow` still disallows the path before its first `*` (a broader rule, so nothing it forbade
 * is fetched), a refused `Allow` allows nothing. One pass, one line at a time.
 */
export function boundedRules(text: string, log: (line: string) => void): string {
  const lines = text.split(/\r\n|\r|\n/);
  let rules = 0;
  let tail = 0;
  const refused: string[] = [];
  for (const [number, line] of lines.entries()) {
    const rule = RULE.exec(line);
    if (!rule) continue;
    const [, kind, value] = rule;
    const path = value.trim();
    if (++rules > MAX_ROBOTS_RULES) {
      lines[number] = '';
      continue;
    }
    const star = path.indexOf('*');
    const ruleTail = star === -1 ? 0 : path.length - star;
    if (path.length <= MAX_RULE_LENGTH && ruleTail <= MAX_RULE_WILDCARD_TAIL && tail + ruleTail <= MAX_WILDCARD_TAIL) {
      tail += ruleTail;
      continue;
    }
    refused.push(`${kind} rule of line ${number + 1}`);
    const prefix = path.slice(0, star === -1 ? MAX_RULE_LENGTH : Math.min(star, MAX_RULE_LENGTH));
    lines[number] = kind.toLowerCase() === 'disallow' ? `Disallow: ${prefix || '/'}` : '';
  }
  if (rules > MAX_ROBOTS_RULES)
    log(`it holds ${rules} rules; the first ${MAX_ROBOTS_RULES} are kept and the others are not read`);
  if (refused.length > 0)
    log(
      `${refused.length} rules cost too much to match and are refused (${refused.slice(0, 3).join(', ')}${refused.length > 3 ? ', …' : ''}); a refused Disallow still disallows the path before its first *`,
    );
  return lines.join('\n');
}

/** The longest `Crawl-delay` honoured, in seconds: a larger one would make a sync of 1,000 pages take days. */
export const MAX_CRAWL_DELAY_S = 10;

/** What robots.txt says to this crawler: which addresses it may fetch, and how long to wait between two (ms). */
export interface RobotsRules {
  allowed: Allowed;
  crawlDelayMs: number;
}

/**
 * The origin's robots.txt rules for `limits.userAgent`: a file that answers 4xx allows everything; one that answers
 * 5xx or cannot be fetched throws, so that nothing is fetched this time. The first {@link ROBOTS_MAX_BYTES} are read.
 * A `Crawl-delay` for this agent (or `*`) is honoured up to {@link MAX_CRAWL_DELAY_S}.
 */
export async function readRobots(
  origin: string,
  limits: FetchLimits & Route,
  log: (line: string) => void,
): Promise<RobotsRules> {
  const address = `${origin}/robots.txt`;
  const fetched = await fetchWithin(address, origin, () => true, limits);
  if (!fetched.ok) throw new Error(`${address} cannot be read: ${fetched.reason}`);
  const { response } = fetched;
  if (response.status >= 400 && response.status < 500) {
    await response.body?.cancel();
    return { allowed: () => true, crawlDelayMs: 0 };
  }
  if (!response.ok) {
    await response.body?.cancel();
    throw new Error(`${address} answered ${response.status}`);
  }
  const decoder = new TextDecoder();
  let text = '';
  const body = cappedBody(response, ROBOTS_MAX_BYTES);
  let next = await body.next();
  for (; !next.done; next = await body.next()) text += decoder.decode(next.value, { stream: true });
  // Past the cap, the line cut in two is not read.
  if (!next.value) text = text.slice(0, Math.max(0, text.lastIndexOf('\n'), text.lastIndexOf('\r')));
  const robots = robotsParser(
    address,
    boundedRules(text, (line) => log(`[knowledge] ${address}: ${line}`)),
  );
  const delay = Math.min(Number(robots.getCrawlDelay(limits.userAgent) ?? 0) || 0, MAX_CRAWL_DELAY_S);
  return { allowed: (url) => robots.isAllowed(url, limits.userAgent) === true, crawlDelayMs: delay * 1000 };
}
