import { Readability } from '@mozilla/readability';
import { parseHTML } from 'linkedom';
import { oneLine, type PageDraft, pageDescription, SectionWriter } from './page.ts';

/** Elements that end a paragraph of text. */
const BLOCKS = new Set(
  'ADDRESS ARTICLE ASIDE BLOCKQUOTE BR DD DETAILS DIV DL DT FIELDSET FIGCAPTION FIGURE FOOTER FORM HEADER HR LI MAIN NAV OL P SECTION SUMMARY TABLE TBODY TD TFOOT TH THEAD TR UL'.split(
    ' ',
  ),
);
/** Elements whose text is never page text. */
const HIDDEN = new Set(['SCRIPT', 'STYLE', 'NOSCRIPT', 'TEMPLATE', 'SVG', 'IFRAME', 'OBJECT', 'CANVAS']);
/** What the fallback leaves out when Readability finds no article: the page's chrome around its content. */
const CHROME =
  'nav, header, footer, aside, form, script, style, noscript, template, [role="navigation"], [aria-hidden="true"]';

/**
 * The least share of the page's text (without its chrome) that Readability's article must hold to be taken. Made for
 * articles, it takes one block of a reference page (a man page's list of options) and drops its name, synopsis and
 * description; a page it cuts that much is read whole.
 */
const ARTICLE_SHARE = 0.8;

const HEADINGS = 'h1, h2, h3, h4, h5, h6';
/** The elements that hold one section and carry its id: HTML's own, Sphinx's and DocBook's (`div.sect2`). */
const SECTION_HOLDERS = 'section[id], article[id], div[id][class*="sect"]';
/** Where a heading's link target is kept while Readability rewrites the document (it drops most wrappers' ids). */
const SECTION_ID = 'data-section-id';

/**
 * Marks every heading with the id a link to its section takes: its own, an anchor's inside it (`<a id>` or `<a name>`,
 * as Sphinx, MkDocs and older sites write), or its enclosing section's. Done before Readability, which drops them.
 */
function markSectionIds(document: Document): void {
  for (const heading of Array.from(document.querySelectorAll(HEADINGS))) {
    const anchor = heading.querySelector('[id], a[name]');
    const id =
      heading.getAttribute('id') ||
      anchor?.getAttribute('id') ||
      anchor?.getAttribute('name') ||
      heading.parentElement?.closest(SECTION_HOLDERS)?.getAttribute('id');
    if (id) heading.setAttribute(SECTION_ID, id.trim());
  }
}

/** The characters of an element's text, white space left out. */
const textSize = (element: Element) => (element.textContent ?? '').replace(/\s+/g, '').length;

/** {@link textSize} of the body without its chrome (chrome inside chrome counted once). */
function contentSize(body: Element | null): number {
  if (!body) return 0;
  const chrome = Array.from(body.querySelectorAll(CHROME)).filter((element) => !element.parentElement?.closest(CHROME));
  return chrome.reduce((size, element) => size - textSize(element), textSize(body));
}

/** Walks the main content in document order: a heading starts a section, a block ends a paragraph. */
function readSections(root: Element): Pick<PageDraft, 'sections'> & { firstHeading?: string } {
  const writer = new SectionWriter();
  let line = '';
  const endParagraph = () => {
    writer.paragraph(oneLine(line));
    line = '';
  };
  const walk = (node: Node) => {
    for (const child of Array.from(node.childNodes)) {
      if (child.nodeType === 3) {
        line += child.textContent ?? '';
        continue;
      }
      if (child.nodeType !== 1) continue;
      const tag = (child as Element).tagName.toUpperCase();
      if (HIDDEN.has(tag)) continue;
      const level = /^H([1-6])$/.exec(tag)?.[1];
      if (level) {
        endParagraph();
        writer.heading(
          Number(level),
          child.textContent ?? '',
          (child as Element).getAttribute(SECTION_ID) ?? undefined,
        );
      } else if (tag === 'PRE') {
        endParagraph();
        writer.paragraph(child.textContent ?? '');
      } else if (BLOCKS.has(tag)) {
        endParagraph();
        walk(child);
        endParagraph();
      } else {
        walk(child);
      }
    }
  };
  walk(root);
  endParagraph();
  return { sections: writer.finish(), firstHeading: writer.firstHeading };
}

/**
 * An HTML page's title, canonical address, language and main text. `<title>` and `<link rel="canonical">` win; the
 * main text is what Mozilla's Readability keeps (not the navigation, header, footer or cookie banner), or, when it
 * finds no article, the body without those parts. `address` resolves relative links.
 */
export function htmlPage(html: string, address: string): PageDraft {
  const whole = /<html[\s>]/i.test(html) ? html : `<!doctype html><html><head></head><body>${html}</body></html>`;
  const { document } = parseHTML(whole);
  // linkedom leaves both undefined, and Readability resolves the article's links against them.
  Object.defineProperty(document, 'baseURI', { value: address });
  Object.defineProperty(document, 'documentURI', { value: address });
  const title = oneLine(document.querySelector('title')?.textContent ?? '') || undefined;
  const url = document.querySelector('link[rel~="canonical" i]')?.getAttribute('href')?.trim() || undefined;
  const language = document.documentElement?.getAttribute('lang')?.trim() || undefined;
  const keywords = oneLine(document.querySelector('meta[name="keywords" i]')?.getAttribute('content') ?? '');
  const about = pageDescription(document.querySelector('meta[name="description" i]')?.getAttribute('content') ?? '');
  markSectionIds(document);
  // Measured before Readability, which rewrites the document.
  const pageSize = contentSize(document.body);
  const article = new Readability(document, { serializer: (element: Node) => element as Element }).parse();
  let root = article?.content ?? undefined;
  if (!root || textSize(root) < ARTICLE_SHARE * pageSize) {
    const fresh = parseHTML(whole).document;
    markSectionIds(fresh);
    const body = fresh.body;
    for (const element of Array.from(body.querySelectorAll(CHROME))) element.remove();
    root = body;
  }
  const { sections, firstHeading } = readSections(root);
  return { title: title ?? firstHeading, url, language, sections, ...(keywords ? { keywords } : {}), ...about };
}
