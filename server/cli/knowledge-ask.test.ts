import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundledProcess } from '../../testing/knowledge-command.ts';

const run = promisify(execFile);

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'knowledge-ask-'));
  await writeFile(join(dir, 'about.md'), '# About us\n\nWe sell linen bags that we sew ourselves.\n');
  await writeFile(join(dir, 'contact.md'), '# Visit us\n\nBicycle racks are in front of the door.\n');
  await writeFile(join(dir, 'returns-ja.md'), '---\nlang: ja\n---\n# 返品と交換について\n\n返品を受け付けます。\n');
  await writeFile(
    join(dir, 'site.yaml'),
    `knowledge:\n  - path: ${dir}\n    url: https://shop.example.com/\nrewrite_questions: false\n`,
  );
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('npm run knowledge -- ask', () => {
  it("prints the terms, the candidates, the cut and its rule, with the site's configuration", async () => {
    const [node, command] = bundledProcess('knowledge');
    const { stdout } = await run(node, [command, 'ask', 'Do you sell bicycles?'], {
      cwd: dir,
      env: { ...process.env, ASSISTANT_CONFIG: 'site.yaml' },
    });

    expect(stdout).toMatch(/sell +in +1 passages +weight \d\.\d\d +searched/);
    expect(stdout).toMatch(
      /cut: below minCoverage +score .* coverage 0\.50 +About us › About us +https:\/\/shop\.example\.com\/about#about-us/,
    );
    expect(stdout).toContain('https://shop.example.com/contact#visit-us');
    expect(stdout).toContain('Given: nothing');
    expect(stdout).toContain('Search words: not asked, rewrite_questions is false (it would be: not-found).');
  }, 60_000);

  it('says what the follow-up rule decided and why, and looks up no other language when the pages have its own', async () => {
    const [node, command] = bundledProcess('knowledge');
    const { stdout } = await run(
      node,
      [command, 'ask', 'What will the weather be like tomorrow?', '--previous', 'Where are your bicycle racks?'],
      { cwd: dir, env: { ...process.env, ASSISTANT_CONFIG: 'site.yaml' } },
    );

    expect(stdout).toContain('Follow-up (joined): no search words: it is looked up as typed, and with the previous');
    expect(stdout).toContain("Looked up: the message with the previous question's words in the en passages");
    expect(stdout).not.toContain('in the ja passages');
    expect(stdout).toContain('Given: nothing');
  }, 60_000);
});
