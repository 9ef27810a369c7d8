import GithubSlugger from 'github-slugger';
import { oneLine, type PageDraft, pageDescription, SectionWriter } from './page.ts';

/** What a Markdown file's front matter may set. */
interface FrontMatter {
  title?: string;
  url?: string;
  language?: string;
  keywords?: string;
  description?: string;
}

/** Reads the `title:`, `url:` and `lang:`/`language:` lines of a `---` front matter block, and the text after it. */
function splitFrontMatter(text: string): { front: FrontMatter; body: string } {
  const match = /^\uFEFF?---\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/.exec(text);
  if (!match) return { front: {}, body: text };
  const front: FrontMatter = {};
  for (const line of match[1].split(/\r?\n/)) {
    const pair = /^(title|url|lang|language|keywords|description)\s*:\s*(.*)$/i.exec(line);
    if (!pair) continue;
    const value = pair[2].trim().replace(/^(["'])(.*)\1$/, '$2');
    const key = pair[1].toLowerCase();
    if (value === '') continue;
    if (key === 'keywords') front.keywords = value.replace(/^\[(.*)\]$/, '$1');
    else if (key === 'title') front.title = oneLine(value);
    else if (key === 'description') front.description = value;
    else if (key === 'url') front.url = value;
    else front.language = value;
  }
  return { front, body: text.slice(match[0].length) };
}

/**
 * Markdown's inline syntax reduced to the words a reader sees: `[text](url)` keeps its text; images (in READMEs mostly
 * badges) and HTML tags go. Addresses inside the text would only add noise to the index and to the model's material.
 */
function plainInline(text: string): string {
  return text
    .replace(/!\[[^\]]*\](?:\([^)]*\)|\[[^\]]*\])/g, '')
    .replace(/\[([^\]]*)\](?:\([^)]*\)|\[[^\]]*\])/g, '$1')
    .replace(/<\/?[a-zA-Z][^>]*>/g, ' ')
    .replace(/^\s*\[[^\]]+\]:\s*\S+.*$/gm, '');
}

/**
 * A Markdown document as sections along its ATX headings (`#` to `######`); a `#` inside a fenced code block is code,
 * not a heading. The title is the front matter's, else the first heading.
 */
export function markdownPage(text: string): PageDraft {
  const { front, body } = splitFrontMatter(text);
  const writer = new SectionWriter();
  // The ids GitHub (and most static generators after it) give headings, numbered when two headings read the same.
  const slugger = new GithubSlugger();
  let fence: string | undefined;
  let paragraph: string[] = [];
  const endParagraph = () => {
    writer.paragraph(fence ? paragraph.join('\n') : plainInline(paragraph.join('\n')));
    paragraph = [];
  };
  for (const line of body.split(/\r?\n/)) {
    const fenceMark = /^\s{0,3}(`{3,}|~{3,})/.exec(line)?.[1];
    if (fence) {
      paragraph.push(line);
      if (fenceMark && fenceMark[0] === fence[0] && fenceMark.length >= fence.length) {
        endParagraph();
        fence = undefined;
      }
      continue;
    }
    if (fenceMark) {
      endParagraph();
      fence = fenceMark;
      paragraph.push(line);
      continue;
    }
    const heading = /^\s{0,3}(#{1,6})\s+(.*?)(?:\s+#+)?\s*$/.exec(line);
    if (heading) {
      endParagraph();
      const text = oneLine(plainInline(heading[2]));
      writer.heading(heading[1].length, text, slugger.slug(text));
    } else if (line.trim() === '') {
      endParagraph();
    } else {
      paragraph.push(line);
    }
  }
  endParagraph();
  const sections = writer.finish();
  return {
    title: front.title || writer.firstHeading,
    url: front.url,
    language: front.language,
    sections,
    ...(front.keywords ? { keywords: front.keywords } : {}),
    ...pageDescription(front.description),
  };
}
