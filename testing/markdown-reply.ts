/** About `length` characters of the Markdown a model writes: paragraphs, emphasis, lists, links, code and a table. */
export function typicalMarkdownReply(length: number): string {
  const sections = [
    'To set this up, **install the package** and add it to your *build* step. See [the guide](https://example.com/guide).\n\n',
    '1. Open `settings.json`.\n2. Add the **key** shown below.\n3. Restart the ~~server~~ service.\n\n',
    '```js\nexport function add(a, b) {\n  return a + b;\n}\n```\n\n',
    '| Option | Default |\n| --- | --- |\n| `timeout` | 30 s |\n| `retries` | 0 |\n\n',
    '- [x] Installed\n- [ ] Configured, see <https://example.com/config>\n\n',
  ];
  let text = '';
  for (let index = 0; text.length < length; index += 1) text += sections[index % sections.length];
  return text.slice(0, length);
}

/**
 * The streaming case: a 2,000-character Markdown reply in 250 pieces of 8 characters, as a provider streams
 * it. Shared by the browser test (no long task at 4× CPU slowdown) and the bench (what it costs).
 */
export function streamedMarkdownReply(): { reply: string; pieces: string[] } {
  const reply = typicalMarkdownReply(2000);
  const pieces = Array.from({ length: 250 }, (_, index) => reply.slice(index * 8, index * 8 + 8));
  return { reply, pieces };
}
