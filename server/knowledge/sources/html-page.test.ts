import { describe, expect, it } from 'vitest';
import { htmlPage } from './html-page.ts';

/** A manual page as Asciidoctor writes it (git-doc's pages): a name line in a header, then sections of a list each. */
function manualPage(options: number, examples: number): string {
  const option = (n: number) =>
    `<dt class="hdlist1">--option-${n}</dt><dd><p>Instead of searching tracked files in the working tree, search blobs registered in the index file, the ${n}th way.</p></dd>`;
  return `<!doctype html><html><head><title>git-grep(1)</title></head><body class="manpage">
    <div id="header"><h1>git-grep(1) Manual Page</h1><h2>NAME</h2>
      <div class="sectionbody"><p>git-grep - Print lines matching a pattern</p></div></div>
    <div id="content">
      <div class="sect1"><h2 id="_synopsis">SYNOPSIS</h2><div class="sectionbody"><pre>git grep [-a | --text] &lt;pattern&gt;</pre></div></div>
      <div class="sect1"><h2 id="_description">DESCRIPTION</h2><div class="sectionbody"><div class="paragraph">
        <p>Look for specified patterns in the tracked files in the work tree.</p></div></div></div>
      <div class="sect1"><h2 id="_examples">EXAMPLES</h2><div class="sectionbody">
        ${Array.from({ length: examples }, (_, n) => `<div class="listingblock"><pre>git grep 'time_t' -- '*.[ch]' # example ${n}</pre></div>`).join('')}
      </div></div>
      <div class="sect1"><h2 id="_options">OPTIONS</h2><div class="sectionbody"><div class="dlist"><dl>
        ${Array.from({ length: options }, (_, n) => option(n)).join('')}
      </dl></div></div></div>
    </div></body></html>`;
}

describe('an HTML reference page', () => {
  it('is read whole when Readability would keep one block of it, its name line and section ids too', () => {
    const { sections } = htmlPage(manualPage(30, 30), 'https://git.example/git-grep.html');
    const text = sections.map((section) => section.text).join('\n');
    expect(text).toContain('Print lines matching a pattern');
    expect(text).toContain('Look for specified patterns');
    expect(text).toContain('the 29th way');
    expect(sections.map((section) => section.id)).toEqual(expect.arrayContaining(['_description', '_options']));
  });
});
