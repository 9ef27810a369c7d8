// `npm start` with a site configuration: it starts with a good one, and refuses a bad one, naming the key.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { productionHarness, TEST_TIMEOUT_MS } from '../testing/production-harness.ts';

const { startServer } = productionHarness('main-config', { direct: true });

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'main-config-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function configFile(name: string, text: string): Promise<string> {
  const file = join(dir, name);
  await writeFile(file, text);
  return file;
}

describe('npm start with a configuration file', () => {
  it(
    'serves the configured title and says where the configuration came from',
    async () => {
      const file = await configFile('good.yaml', 'title: Acme & Co\nstarters: [Hi?]\n');
      const server = await startServer({ ASSISTANT_CONFIG: file });
      const page = await (await fetch(server.url)).text();

      expect(page).toContain('<title>Acme &amp; Co</title>');
      expect(server.output.join('\n')).toContain(`configuration from ${file}`);
    },
    TEST_TIMEOUT_MS,
  );

  it.each([
    ['title', 'title: ""'],
    ['welcome', 'welcome: 12'],
    ['starters', 'starters: [a, b, c, d, e]'],
    ['starters.0', `starters: ["${'x'.repeat(81)}"]`],
    ['instructions', 'instructions: [a]'],
    ['accent', 'accent: "#ffff00"'],
    ['history', 'history: 11'],
    ['language', 'language: xx'],
    ['colour', 'colour: red'],
  ])(
    'refuses to start on a bad %s, naming it',
    async (key, text) => {
      const file = await configFile(`bad-${key}.yaml`, `${text}\n`);
      const starting = startServer({ ASSISTANT_CONFIG: file });

      await expect(starting).rejects.toThrow(/exited \(code 1\)/);
      await expect(starting).rejects.toThrow(
        new RegExp(`Invalid configuration in .*\\n\\s+- ${key.replace('.', '\\.')} \\(line 1\\): `),
      );
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'refuses instructions and history with a direct-mode build, whose page would carry them',
    async () => {
      const file = await configFile('direct.yaml', 'instructions: Be brief.\nhistory: 1\n');
      const starting = startServer({ ASSISTANT_CONFIG: file }, 'direct');

      await expect(starting).rejects.toThrow(/- instructions \(line 1\): not allowed in a direct-mode build/);
      await expect(starting).rejects.toThrow(/- history \(line 2\): not allowed in a direct-mode build/);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'refuses handoff.email without SMTP_URL, naming the key and its line; with it, says where handoffs go, no password',
    async () => {
      const file = await configFile('handoff.yaml', 'title: Shop\nhandoff:\n  email: help@shop.example\n');
      await expect(startServer({ ASSISTANT_CONFIG: file })).rejects.toThrow(
        /- handoff\.email \(line 3\): needs SMTP_URL/,
      );
      // Obviously fake; nothing listens there, and nothing is sent at start-up.
      const password = 'fake-smtp-password-93ab';
      const server = await startServer({
        ASSISTANT_CONFIG: file,
        SMTP_URL: `smtp://assistant%40shop.example:${password}@127.0.0.1:9`,
        DATA_DIR: dir,
      });
      const output = server.output.join('\n');
      expect(output).toContain(
        `handoffs go by email to help@shop.example, waiting in ${join(dir, 'handoff', 'outbox')}`,
      );
      expect(output).not.toContain(password);
    },
    TEST_TIMEOUT_MS,
  );
});
