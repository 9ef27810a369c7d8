// The counts under DATA_DIR when the disk fails: full, read-only, a file cut short, a link planted beside it. The disk
// is a real tmpfs of 512 KB (testing/small-disk.ts), filled and remounted as a failing disk would be.
import {
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { STATS_PATH } from '../../contract/owner.ts';
import { chatBody, postChat, proxyHarness, until } from '../../testing/proxy-app.ts';
import { type SmallDisk, smallDisk } from '../../testing/small-disk.ts';
import { FileCountStore } from './count-store.ts';
import { createFeedback, type Feedback } from './feedback.ts';

const { start } = await proxyHarness();
// Obviously fake: tests only.
const OWNER_TOKEN = 'test-owner-token-fedcba9876543210';
const disks: SmallDisk[] = [];
const feedbacks: Feedback[] = [];
afterEach(async () => {
  await Promise.all(feedbacks.splice(0).map((feedback) => feedback.close()));
  for (const disk of disks.splice(0)) disk.remove();
});

function disk(): SmallDisk {
  const made = smallDisk();
  disks.push(made);
  return made;
}

/** A server whose counts are kept under `dataDir`, writing again 50 ms after a failed write; its log. */
async function serverOn(dataDir: string) {
  const logs: string[] = [];
  const log = (line: string) => logs.push(line);
  const feedback = createFeedback({ store: new FileCountStore(dataDir, log, 50), log });
  feedbacks.push(feedback);
  const server = await start({ feedback, ownerToken: OWNER_TOKEN, log });
  return { url: server.url, logs };
}

/** A chat reply's status and whether it carries a vote token. */
async function ask(url: string): Promise<{ status: number; token: boolean }> {
  const response = await postChat(url, chatBody('Where is my order?'));
  const body = (await response.json()) as { reply?: string };
  return { status: response.status, token: typeof body.reply === 'string' };
}

async function messagesCounted(url: string): Promise<number> {
  const response = await fetch(`${url}${STATS_PATH}?days=1`, { headers: { authorization: `Bearer ${OWNER_TOKEN}` } });
  return ((await response.json()) as { totals: { messages: number } }).totals.messages;
}

const countsFile = (dataDir: string) => join(dataDir, 'feedback', 'counts.json');
const written = (dataDir: string) => JSON.parse(readFileSync(countsFile(dataDir), 'utf8')) as { days: object };
const asideLines = (logs: string[]) => logs.filter((line) => line.includes('was moved aside'));

describe('the counts file on a failing disk', () => {
  it('keeps chat going on a full disk: said once, counted in memory, written once there is room', async () => {
    const { path, fill, free } = disk();
    const { url, logs } = await serverOn(path);
    expect(await ask(url)).toEqual({ status: 200, token: true });
    fill();
    for (let message = 0; message < 3; message++) {
      expect((await ask(url)).status).toBe(200);
      // Past the second in which a change is written: the write from the timer fails in between.
      await new Promise((resolve) => setTimeout(resolve, 1_100));
    }
    expect(await messagesCounted(url)).toBe(4);
    const failures = logs.filter((line) => line.includes('could not be written'));
    expect(failures).toEqual([expect.stringContaining(`${countsFile(path)} (ENOSPC`)]);
    // A failed write leaves nothing behind on the full disk. Read between two attempts: each, every 50 ms, has its
    // half-written file for a moment before removing it, and on a busy machine a read at once could fall inside one.
    await until(
      () => readdirSync(join(path, 'feedback')).join() === 'counts.json',
      'nothing but counts.json on the full disk',
    );

    free();
    await until(() => logs.some((line) => line.includes('are written to')), 'the counts written again');
    expect(JSON.stringify(written(path).days)).toContain('"messages":4');
    expect(await ask(url)).toEqual({ status: 200, token: true });
  }, 20_000);

  it('starts on a read-only DATA_DIR and answers, with no vote token until its secret is kept', async () => {
    const { path, readOnly } = disk();
    readOnly(true);
    const { url, logs } = await serverOn(path);
    expect(await ask(url)).toEqual({ status: 200, token: false });
    expect(await ask(url)).toEqual({ status: 200, token: false });
    expect(await messagesCounted(url)).toBe(2);
    expect(logs.filter((line) => line.includes('could not be written'))).toHaveLength(1);
    expect(logs.filter((line) => line.includes('no vote token'))).toHaveLength(1);

    readOnly(false);
    await until(() => existsSync(countsFile(path)), 'the counts written');
    expect(await ask(url)).toEqual({ status: 200, token: true });
    expect(logs).toContain('[feedback] replies carry vote tokens again');
  }, 20_000);
});

describe('a counts file the server cannot read', () => {
  for (const [kind, text] of [
    ['empty', ''],
    ['cut short', '{"version":1,"secret":"abc","days":{"2026-11-'],
    ['of another shape', '{"version":7}'],
  ]) {
    it(`(${kind}) is moved aside, named in one line, and the server starts afresh`, async () => {
      const { path } = disk();
      mkdirSync(join(path, 'feedback'));
      writeFileSync(countsFile(path), text);
      const { url, logs } = await serverOn(path);
      expect(await ask(url)).toEqual({ status: 200, token: true });
      const aside = readdirSync(join(path, 'feedback')).find((name) => name.startsWith('counts.json.unreadable-'));
      expect(aside).toBeDefined();
      expect(readFileSync(join(path, 'feedback', aside as string), 'utf8')).toBe(text);
      const lines = asideLines(logs);
      expect(lines).toHaveLength(1);
      const both = `${countsFile(path)} was moved aside to ${join(path, 'feedback', aside as string)}: `;
      expect(lines[0].startsWith(`[feedback] the counts file ${both}`)).toBe(true);
      expect(lines[0]).toMatch(/; the counts start afresh$/);
      expect(await messagesCounted(url)).toBe(1);
    });
  }
});

describe('the files the server writes', () => {
  it('are its own (mode 600), and a link planted where it writes is never written through', async () => {
    const { path } = disk();
    mkdirSync(join(path, 'feedback'));
    const target = join(path, 'planted-target');
    writeFileSync(target, 'untouched');
    // The name the server wrote through before; any name beside counts.json is as good to an attacker.
    symlinkSync(target, `${countsFile(path)}.next`);
    const { url } = await serverOn(path);
    await ask(url);
    await feedbacks.splice(0)[0]?.close();

    expect(readFileSync(target, 'utf8')).toBe('untouched');
    expect(lstatSync(countsFile(path)).isSymbolicLink()).toBe(false);
    expect(statSync(countsFile(path)).mode & 0o777).toBe(0o600);
    expect(JSON.stringify(written(path).days)).toContain('"messages":1');
  });
});
