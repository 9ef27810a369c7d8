import { createHash } from 'node:crypto';
import { readdir, readFile, stat } from 'node:fs/promises';
import { basename, extname, join, relative, sep } from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { htmlPage } from './html-page.ts';
import { markdownPage } from './markdown-page.ts';
import { isWebAddress, type Page, type PageDraft, readingHash, SectionWriter } from './page.ts';

/** The kinds of file a folder source reads; any other file is skipped with a log line. */
const READERS: Record<string, (text: string, address: string) => PageDraft> = {
  '.md': markdownPage,
  '.markdown': markdownPage,
  '.html': htmlPage,
  '.htm': htmlPage,
  '.txt': textPage,
};

/** A plain text file: its paragraphs, under no heading (its title is then the file's name). */
function textPage(text: string): PageDraft {
  const writer = new SectionWriter();
  for (const paragraph of text.split(/\r?\n\s*\r?\n/)) writer.paragraph(paragraph);
  return { sections: writer.finish() };
}

/** `url` with a trailing slash, so that a relative path lands inside it rather than beside it. */
const folderAddress = (url: string) => (url.endsWith('/') ? url : `${url}/`);

/**
 * One file of a folder source as a page. `relativePath` is the file's path under the folder (with `/`); its address is
 * the source's `url` plus that path without its extension, unless the file names its own (front matter `url:`,
 * `<link rel="canonical">`), which must then be `http:` or `https:`. `undefined` for a file of another kind.
 */
export function filePage(relativePath: string, text: string, url: string, language: string): Page | undefined {
  const extension = extname(relativePath).toLowerCase();
  const read = READERS[extension];
  if (!read) return undefined;
  const path = relativePath.slice(0, relativePath.length - extension.length);
  // Static generators publish a folder's index file at the folder's own address: `faq/index.md` is `…/faq/`.
  const published = /(^|\/)index$/i.test(path) ? path.slice(0, -'index'.length) : path;
  const address = new URL(published.split('/').map(encodeURIComponent).join('/'), folderAddress(url)).href;
  const draft = read(text, address);
  const own = draft.url === undefined ? undefined : URL.parse(draft.url, address)?.href;
  return {
    url: own !== undefined && isWebAddress(own) ? own : address,
    title: draft.title ?? basename(path),
    language: draft.language ?? language,
    sections: draft.sections,
    ...(draft.keywords ? { keywords: draft.keywords } : {}),
    ...(draft.description ? { description: draft.description } : {}),
  };
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/** A file's text, or why it is not text: a NUL byte or a byte sequence that is not UTF-8. */
function fileText(bytes: Uint8Array): string | undefined {
  if (bytes.includes(0)) return undefined;
  try {
    return strictUtf8.decode(bytes);
  } catch {
    return undefined;
  }
}

/** What the store knows of a file from its last reading: a file whose time is the same is not read again. */
export interface KnownFile {
  mtimeMs?: number;
  textHash: string;
}

/** What became of one file of a folder source (its address is its path under the folder, with `/`). */
export type FileOutcome =
  | { address: string; kind: 'page'; page: Page; mtimeMs: number; textHash: string; bytes: number }
  /** The same modification time, or the same bytes: nothing was parsed. */
  | { address: string; kind: 'unchanged'; mtimeMs: number }
  | { address: string; kind: 'skipped'; reason: string };

/** A file's bytes as a hash: the same bytes make the same page, so they change nothing downstream. */
export const bytesHash = (bytes: Uint8Array) => readingHash(createHash('sha256').update(bytes).digest('base64url'));

/**
 * Every `.md`, `.html` and `.txt` file under `folder`, read recursively, as pages published under `url`. A file in
 * `known` whose modification time or bytes are the same is not parsed again. A file that cannot be read, is not text
 * or is of another kind is skipped, with a log line that names it. Throws when the folder cannot be read.
 */
export async function readFolder(
  folder: string,
  url: string,
  language: string,
  log: (line: string) => void,
  known: ReadonlyMap<string, KnownFile> = new Map(),
): Promise<FileOutcome[]> {
  const entries = await readdir(folder, { recursive: true, withFileTypes: true });
  const files = entries
    .filter((entry) => entry.isFile() || entry.isSymbolicLink())
    .map((entry) => join(entry.parentPath, entry.name))
    .sort();
  const outcomes: FileOutcome[] = [];
  const skip = (address: string, file: string, reason: string) => {
    log(`[knowledge] skipped ${file}: ${reason}`);
    outcomes.push({ address, kind: 'skipped', reason });
  };
  for (const file of files) {
    const address = relative(folder, file).split(sep).join('/');
    if (!READERS[extname(file).toLowerCase()]) {
      skip(address, file, 'not a .md, .html or .txt file');
      continue;
    }
    const before = known.get(address);
    let bytes: Uint8Array;
    let mtimeMs: number;
    try {
      mtimeMs = (await stat(file)).mtimeMs;
      if (before?.mtimeMs === mtimeMs) {
        outcomes.push({ address, kind: 'unchanged', mtimeMs });
        continue;
      }
      bytes = await readFile(file);
    } catch (error) {
      skip(address, file, `it cannot be read (${(error as Error).message})`);
      continue;
    }
    const textHash = bytesHash(bytes);
    if (before?.textHash === textHash) {
      outcomes.push({ address, kind: 'unchanged', mtimeMs });
      continue;
    }
    const text = fileText(bytes);
    if (text === undefined) {
      skip(address, file, 'it is not UTF-8 text');
      continue;
    }
    const page = filePage(address, text, url, language);
    if (page) outcomes.push({ address, kind: 'page', page, mtimeMs, textHash, bytes: bytes.byteLength });
    // Reading an HTML page takes some milliseconds of one core: a chat request waits for one page at most.
    await nextTurn();
  }
  return outcomes;
}
