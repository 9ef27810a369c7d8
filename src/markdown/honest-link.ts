import { BIDI_CONTROL_CHARACTERS } from './bidi-controls';

// Links that would lie about where they go. A reply (or a prompt injection speaking through it) chooses both a link's
// text and its target; the reader sees only the text. These are shown as text, never as links.

// Userinfo in an http(s) URL, read as the RFC reads it (only `/`, `?` and `#` end the authority). The browser reads
// `\` as `/` too, so `http://good.example\@evil.example` goes to good.example there but to evil.example elsewhere:
// either way the text names a host the link may not go to.
const USERINFO = /^https?:[\\/]*[^/?#]*@/i;

// A whole link text that is a URL (`https://bank.example`) or a domain, optionally with a port or path
// (`www.bank.example/login`). The last label is spelt as top-level domains are (letters, or punycode), so that `3.14`
// and `e.g.` name no host.
const URL_TEXT = /^[a-z][a-z\d+.-]*:\/\//i;
const DOMAIN_TEXT = /^(?:[\p{L}\p{N}_-]+\.)+(?:\p{L}{2,}|xn--[a-z\d-]+)\.?(?:[:/?#]\S*)?$/iu;

// Characters a reader does not see: default-ignorable code points and format characters (zero-width spaces and
// joiners, the soft hyphen, word joiners, tags, variation selectors). `ba\u200Bnk.example` reads "bank.example".
const INVISIBLE = /[\p{Default_Ignorable_Code_Point}\p{Cf}]/gu;
// Full stops that read as `.`: ideographic, full-width and half-width.
const FULL_STOPS = /[\u3002\uFF0E\uFF61]/g;
// Any bidirectional control, marks included: text that needs them to read as a host was written to mislead.
const BIDI = new RegExp(`[${BIDI_CONTROL_CHARACTERS}\\u200E\\u200F\\u061C]`);

/** A link's text as a reader sees it: without invisible characters, compatibility forms folded (NFKC). */
const asSeen = (text: string) => text.replace(INVISIBLE, '').normalize('NFKC').replace(FULL_STOPS, '.');

/** The host a link's text names, as the URL parser spells it (lower case, IDN as punycode), or `undefined`. */
function namedHost(text: string): string | undefined {
  const trimmed = asSeen(text).trim();
  const url = URL_TEXT.test(trimmed) ? trimmed : DOMAIN_TEXT.test(trimmed) ? `http://${trimmed}` : undefined;
  if (!url) return undefined;
  try {
    return new URL(url).hostname || undefined;
  } catch {
    return undefined;
  }
}

// `BANK.example.`, `www.bank.example` and `bank.example` are one site to a reader.
const sameSite = (host: string) => host.replace(/\.$/, '').replace(/^www\./, '');

/**
 * Whether a link must not be made: its URL carries userinfo (`user@host`), its text holds a bidirectional control, or
 * its text, as a reader sees it, is a URL or domain naming another host than the one it goes to. `url` is the target
 * as written, `href` the same after `safeHref`.
 */
export function misleads(url: string, href: string, text: string): boolean {
  const target = new URL(href);
  if (target.username || target.password || USERINFO.test(url.trim()) || BIDI.test(text)) return true;
  const named = namedHost(text);
  return named !== undefined && sameSite(named) !== sameSite(target.hostname);
}
