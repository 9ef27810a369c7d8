import { describe, expect, it } from 'vitest';
import { CHAT_COMPLETIONS_PATH } from '../../contract/llm.ts';
import { chatBody, postChat, proxyHarness, SECRET_TEXT } from '../../testing/proxy-app.ts';

const { start } = await proxyHarness();

const line = (status: number, code: string) =>
  expect.stringMatching(new RegExp(`^\\[llm-proxy\\] POST ${CHAT_COMPLETIONS_PATH} ${status} refused: ${code}\\b`));

describe('refused requests in the log', () => {
  it('each get one line with the method, path, status and reason code, and never the body', async () => {
    const { url, logs } = await start({ maxBodyBytes: 1024 });
    const statuses = [
      await postChat(url, chatBody(), { headers: { 'sec-fetch-site': 'cross-site' } }),
      await postChat(url, chatBody(SECRET_TEXT.repeat(100))),
      await postChat(url, JSON.stringify(chatBody()), { headers: { 'content-type': 'text/plain' } }),
      await postChat(url, `{"messages": "${SECRET_TEXT}`),
      await postChat(url, { ...chatBody(), messages: [{ role: 'system', content: SECRET_TEXT }] }),
    ].map((response) => response.status);

    expect(statuses).toEqual([403, 413, 415, 400, 400]);
    expect(logs).toEqual([
      line(403, 'forbidden_origin'),
      line(413, 'body_too_large'),
      line(415, 'unsupported_media_type'),
      line(400, 'invalid_body'),
      line(400, 'invalid_body'),
    ]);
    expect(logs.join('\n')).not.toContain(SECRET_TEXT.slice(0, 8));
  });

  it('say a client over the rate limit once a minute, and the daily cap each time', async () => {
    const limited = await start({ rateLimitPerMinute: 1 });
    const statuses = [];
    for (let i = 0; i < 4; i += 1) statuses.push((await postChat(limited.url, chatBody())).status);
    const capped = await start({ dailyTokenLimit: 1 });
    const cap = await postChat(capped.url, chatBody());

    expect(statuses).toEqual([200, 429, 429, 429]);
    expect(limited.logs.filter((entry) => entry.includes('refused'))).toEqual([line(429, 'rate_limited')]);
    expect(cap.status).toBe(429);
    expect(capped.logs).toEqual([line(429, 'daily_token_limit')]);
  });
});
