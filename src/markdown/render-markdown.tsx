import type { Image, Link, ListItem, Nodes, Parents, Table } from 'mdast';
import { fromMarkdown } from 'mdast-util-from-markdown';
import { gfmAutolinkLiteralFromMarkdown } from 'mdast-util-gfm-autolink-literal';
import { gfmStrikethroughFromMarkdown } from 'mdast-util-gfm-strikethrough';
import { gfmTableFromMarkdown } from 'mdast-util-gfm-table';
import { gfmTaskListItemFromMarkdown } from 'mdast-util-gfm-task-list-item';
import { gfmAutolinkLiteral } from 'micromark-extension-gfm-autolink-literal';
import { gfmStrikethrough } from 'micromark-extension-gfm-strikethrough';
import { gfmTable } from 'micromark-extension-gfm-table';
import { gfmTaskListItem } from 'micromark-extension-gfm-task-list-item';
import type { ReactNode } from 'react';
import type { ReplySource } from '../../contract/llm';
import { t } from '../text';
import { withoutBidiControls } from './bidi-controls';
import { CITATION, citedInOrder } from './citations';
import { CodeBlock } from './code-block';
import { misleads } from './honest-link';
import { limitNesting, MAX_NESTING } from './limit-nesting';

const ALLOWED_PROTOCOLS = new Set(['https:', 'http:', 'mailto:']);

/**
 * The `href` a link may have, or `undefined` when it may not be a link. The URL is parsed as the browser would parse
 * it (character references are already decoded by the Markdown parser; tabs, newlines, leading controls and case are
 * handled by the URL parser), and the serialised result is what the page gets, so what was checked is what is used.
 * Relative URLs have no protocol to check and are refused too.
 */
export function safeHref(url: string): string | undefined {
  try {
    const parsed = new URL(url);
    return ALLOWED_PROTOCOLS.has(parsed.protocol) ? parsed.href : undefined;
  } catch {
    return undefined;
  }
}

const parseOptions = {
  extensions: [gfmTable(), gfmStrikethrough(), gfmTaskListItem(), gfmAutolinkLiteral()],
  mdastExtensions: [
    gfmTableFromMarkdown(),
    gfmStrikethroughFromMarkdown(),
    gfmTaskListItemFromMarkdown(),
    gfmAutolinkLiteralFromMarkdown(),
  ],
};

interface RenderContext {
  /** The source as parsed: with its nesting limited. */
  source: string;
  /** The source is the block still being written: a bare URL at its very end may not have fully arrived. */
  partial: boolean;
  /**
   * The site's pages given to the model for this reply: `[n]` links to source n, and a link the reply writes is one
   * only when it goes to a given source. Left out inside a link (no link in a link).
   */
  sources?: readonly ReplySource[];
}

/**
 * Each source's address as a link's `href` (`safeHref`), by its number: worked out once per list of sources, which a
 * streaming reply renders again with every piece. The citations, the reply's own links and the Sources list use it.
 */
const sourceLinkCache = new WeakMap<readonly ReplySource[], Map<string, string>>();
export function sourceLinks(sources: readonly ReplySource[]): Map<string, string> {
  let links = sourceLinkCache.get(sources);
  if (!links) {
    links = new Map();
    for (const { n, url } of sources) {
      const href = safeHref(url);
      if (href) links.set(String(n), href);
    }
    sourceLinkCache.set(sources, links);
  }
  return links;
}

function isSourceHref(sources: readonly ReplySource[], href: string): boolean {
  return [...sourceLinks(sources).values()].includes(href);
}

/**
 * The numbers of the sources a reply cites ({@link citedInOrder}) that have a link: in the order it first cites each.
 */
export function citedSources(text: string, sources: readonly ReplySource[]): string[] {
  const links = sourceLinks(sources);
  return citedInOrder(text, sources).flatMap(({ n }) => (links.has(String(n)) ? [String(n)] : []));
}

/** `text` with each `[n]` that names a given source as a link to it; any other `[n]` stays text. */
function withCitations(text: string, sources: readonly ReplySource[] | undefined): ReactNode {
  if (!sources?.length || !text.includes('[')) return text;
  const parts = text.split(CITATION);
  if (parts.length === 1) return text;
  return parts.map((part, index) => {
    if (index % 2 === 0) return part;
    const href = sourceLinks(sources).get(part);
    return href ? (
      // biome-ignore lint/suspicious/noArrayIndexKey: the parts of one text node never reorder.
      <a key={index} href={href} target="_blank" rel="noopener noreferrer" data-citation={part}>
        [{part}]
      </a>
    ) : (
      `[${part}]`
    );
  });
}

/**
 * Renders Markdown (CommonMark, GitHub tables, strikethrough, task lists and bare URLs) to React elements chosen here,
 * never to HTML: every element and attribute in the output is one this function creates, and the reply contributes
 * only text and checked link targets. Raw HTML, reference links and definitions are shown as their source text.
 * Structure nested deeper than `MAX_NESTING` shows as its text, a block with more inline markers than the parser can
 * take in reasonable time as its source (`limit-nesting.ts`), and bidirectional embedding, override and isolate
 * controls are left out of the text: a reply cannot reorder what the card shows around them.
 */
export function renderMarkdown(source: string, partial = false, sources?: readonly ReplySource[]): ReactNode {
  const limited = limitNesting(source);
  if (limited === undefined) {
    return <p data-source>{withoutBidiControls(source)}</p>;
  }
  return renderChildren(fromMarkdown(limited, parseOptions), { source: limited, partial, sources }, 0);
}

const BLOCK_PARENTS = new Set(['root', 'blockquote', 'listItem']);

/**
 * Renders `parent`'s children, which sit `depth` levels deep (a list and its items are one level). Past the limit they
 * show as their text, without structure.
 */
function renderChildren(parent: Parents, context: RenderContext, depth: number, tight = false): ReactNode[] {
  if (depth > MAX_NESTING) {
    return [
      <span key="text" data-source>
        {withoutBidiControls(textOf(parent, true))}
      </span>,
    ];
  }
  const block = BLOCK_PARENTS.has(parent.type);
  return parent.children.map((child, index) => renderNode(child, index, context, depth, tight, block));
}

function sourceText(node: Nodes, context: RenderContext): string {
  return withoutBidiControls(context.source.slice(node.position?.start.offset, node.position?.end.offset));
}

/**
 * A node's text as a reader sees it, without its emphasis or code marks; with `literals`, raw HTML and code too.
 * Without recursion: it may nest deep.
 */
function textOf(node: Nodes, literals = false): string {
  let text = '';
  const pending: Nodes[] = [node];
  for (let next = pending.pop(); next; next = pending.pop()) {
    if (next.type === 'text' || next.type === 'inlineCode' || (literals && 'value' in next)) text += next.value;
    else if ('children' in next) {
      for (let index = next.children.length - 1; index >= 0; index -= 1) pending.push(next.children[index]);
    }
  }
  return text;
}

function renderNode(
  node: Nodes,
  key: number,
  context: RenderContext,
  depth: number,
  tight: boolean,
  block = false,
): ReactNode {
  // Each case renders its children one level deeper.
  const children = (parent: Parents, childrenTight = false) =>
    renderChildren(parent, context, depth + 1, childrenTight);
  switch (node.type) {
    case 'text':
      return withCitations(withoutBidiControls(node.value), context.sources);
    case 'paragraph':
      // A tight list's items hold their text without paragraph spacing, as CommonMark renders them.
      return tight ? children(node) : <p key={key}>{children(node)}</p>;
    case 'heading':
      // As strong text, not headings: a reply's headings would enter the page's outline among the card's own.
      return (
        <p key={key} data-heading={node.depth}>
          <strong>{children(node)}</strong>
        </p>
      );
    case 'emphasis':
      return <em key={key}>{children(node)}</em>;
    case 'strong':
      return <strong key={key}>{children(node)}</strong>;
    case 'delete':
      return <del key={key}>{children(node)}</del>;
    case 'inlineCode':
      return <code key={key}>{withoutBidiControls(node.value)}</code>;
    case 'break':
      return <br key={key} />;
    case 'thematicBreak':
      return <hr key={key} />;
    case 'blockquote':
      return <blockquote key={key}>{children(node)}</blockquote>;
    case 'list': {
      const items = node.children.map((item, index) => renderNode(item, index, context, depth, !node.spread));
      return node.ordered ? (
        <ol key={key} start={node.start ?? undefined}>
          {items}
        </ol>
      ) : (
        <ul key={key}>{items}</ul>
      );
    }
    case 'listItem':
      return renderListItem(node, key, children(node, tight && !node.spread));
    case 'code':
      return (
        <CodeBlock
          key={key}
          code={withoutBidiControls(node.value)}
          language={node.lang ? withoutBidiControls(node.lang) : undefined}
        />
      );
    case 'table':
      return renderTable(node, key, context, depth);
    case 'link':
      return renderLink(node, key, context, depth);
    case 'image':
      return renderImage(node, key);
    case 'html':
      // Escaped by React like any text: shown as written, never interpreted.
      return block ? (
        <p key={key} data-source>
          {withoutBidiControls(node.value)}
        </p>
      ) : (
        withoutBidiControls(node.value)
      );
    default:
      // Reference links, images and definitions (a definition could otherwise smuggle an unchecked target in) and
      // anything else not chosen above: shown as written.
      return sourceText(node, context);
  }
}

/** A list's item, a task's with its state as a glyph (never a checkbox: no input comes out of a reply). */
function renderListItem(node: ListItem, key: number, content: ReactNode): ReactNode {
  return (
    <li key={key}>
      {typeof node.checked === 'boolean' && (
        // A glyph, not a checkbox: no input comes out of a reply.
        <span role="img" aria-label={t(node.checked ? 'taskDone' : 'taskNotDone')} data-task>
          {node.checked ? '☑' : '☐'}
        </span>
      )}
      {content}
    </li>
  );
}

/** A link: to a safe address, and with the site's pages given, only to one of them; else its text (and where to). */
function renderLink(node: Link, key: number, context: RenderContext, depth: number): ReactNode {
  const href = safeHref(node.url);
  const start = context.source[node.position?.start.offset ?? 0];
  const bareUrlStillArriving =
    context.partial && node.position?.end.offset === context.source.length && start !== '[' && start !== '<';
  const inner = (parent: Parents) => renderChildren(parent, { ...context, sources: undefined }, depth + 1);
  if (!href || bareUrlStillArriving) return <span key={key}>{inner(node)}</span>;
  // With the site's pages given, a link goes only to one of them: never to an address the model wrote. A reply that
  // came with none (its token's event carries an empty list) keeps its links, as one with no such event does.
  const notASource = context.sources?.length && !isSourceHref(context.sources, href);
  if (notASource || misleads(node.url, href, textOf(node))) {
    // As text, followed by where it would have gone, unless the text is that address already (an autolink).
    return (
      <span key={key}>
        {inner(node)}
        {start === '[' && ` (${href})`}
      </span>
    );
  }
  return (
    <a key={key} href={href} target="_blank" rel="noopener noreferrer nofollow">
      {inner(node)}
    </a>
  );
}

/** An image: never an <img>, its description and address as text (and a link where the address does not mislead). */
function renderImage(node: Image, key: number): ReactNode {
  // Never an <img>: a remote image is a request that a reply (or a prompt injection in it) chooses.
  const href = safeHref(node.url);
  return (
    <span key={key} data-image>
      {`Image: ${withoutBidiControls(node.alt || 'no description')}`}
      {href && (
        <>
          {' ('}
          {/* Shown as itself, the address can mislead only by its userinfo. */}
          {misleads(node.url, href, href) ? (
            href
          ) : (
            <a href={href} target="_blank" rel="noopener noreferrer nofollow">
              {href}
            </a>
          )}
          {')'}
        </>
      )}
    </span>
  );
}

/** A table, in a region that scrolls sideways (and is reachable by keyboard to do so). */
function renderTable(node: Table, key: number, context: RenderContext, depth: number): ReactNode {
  return (
    // Focusable so that a wide table can be scrolled sideways from the keyboard.
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must be reachable by keyboard (WCAG 2.1.1).
    <div key={key} data-scroll tabIndex={0}>
      <table>
        <thead>{renderRow(node.children[0], 0, context, depth + 1, 'th', node.align)}</thead>
        <tbody>
          {node.children.slice(1).map((row, index) => renderRow(row, index, context, depth + 1, 'td', node.align))}
        </tbody>
      </table>
    </div>
  );
}

function renderRow(
  row: Parents | undefined,
  key: number,
  context: RenderContext,
  depth: number,
  cell: 'th' | 'td',
  align: (string | null)[] | null | undefined,
): ReactNode {
  if (!row) return null;
  const Cell = cell;
  return (
    <tr key={key}>
      {row.children.map((child, index) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: a parsed table never reorders its cells.
        <Cell key={index} data-align={align?.[index] ?? undefined}>
          {child.type === 'tableCell' ? renderChildren(child, context, depth + 1) : null}
        </Cell>
      ))}
    </tr>
  );
}
