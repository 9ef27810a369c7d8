// @vitest-environment node
import { RateLimitError } from 'openai';
import { describe, expect, it } from 'vitest';
import { ReplyLimitedError } from '../../machines/chat-machine';
import { replyInput } from '../../testing/controllable-reply';
import { proxyHarness } from '../../testing/proxy-app';
import { readLlmConfig } from './llm-config';
import { requestReply } from './request-reply';

// The real openai client over real HTTP to the real proxy (server/app.ts) in front of the fake provider: the proxy's
// own refusals become the machine's `ReplyLimitedError`, a provider's 429 does not.
const { provider, start } = await proxyHarness();

/** The app's configuration in proxy mode, for a page served by `origin`. */
function proxyConfig(origin: string) {
  return readLlmConfig({ BASE_URL: '/', MODE: 'test', DEV: false, PROD: true, SSR: false }, origin);
}

const refusal = (origin: string) =>
  requestReply(replyInput('hello'), new AbortController().signal, proxyConfig(origin)).then(
    () => undefined,
    (error: unknown) => error,
  );

describe("the proxy's refusals, as the page reads them", () => {
  it('says a request over the rate limit was refused by the rate, with its Retry-After', async () => {
    const { url } = await start({ rateLimitPerMinute: 1 });
    await requestReply(replyInput('hello'), new AbortController().signal, proxyConfig(url));

    const error = await refusal(url);

    expect(error).toBeInstanceOf(ReplyLimitedError);
    const { reason, retryAfterSeconds } = (error as ReplyLimitedError).limit;
    expect(reason).toBe('rate');
    expect(retryAfterSeconds).toBeGreaterThan(0);
    expect(retryAfterSeconds).toBeLessThanOrEqual(60);
  });

  it('says a request past the daily allowance was refused by the day, until the next UTC midnight', async () => {
    const { url } = await start({ dailyTokenLimit: 10 });

    const error = await refusal(url);

    expect(error).toBeInstanceOf(ReplyLimitedError);
    const now = new Date();
    const midnight = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1);
    expect((error as ReplyLimitedError).limit.reason).toBe('daily');
    expect((error as ReplyLimitedError).limit.retryAfterSeconds).toBeCloseTo((midnight - now.getTime()) / 1000, -1);
    expect(provider.requests).toHaveLength(0);
  });

  it('leaves a 429 an ordinary failure in direct mode, where there is no server of the page, whatever its code', async () => {
    provider.queue({ status: 429, retryAfter: '30', code: 'rate_limited' });
    const direct = readLlmConfig(
      {
        BASE_URL: '/',
        MODE: 'test',
        DEV: false,
        PROD: true,
        SSR: false,
        VITE_LLM_API_KEY: 'test-key-not-real',
        VITE_LLM_BASE_URL: provider.baseURL,
      },
      'http://page.example.test',
    );

    const error = await requestReply(replyInput('hello'), new AbortController().signal, direct).then(
      () => undefined,
      (failure: unknown) => failure,
    );

    expect(error).toBeInstanceOf(RateLimitError);
    expect(error).toMatchObject({ code: 'rate_limited' });
    expect(error).not.toBeInstanceOf(ReplyLimitedError);
  });

  it("leaves a provider's own 429, which the proxy passes on, an ordinary failure", async () => {
    const { url } = await start();
    provider.queue({ status: 429, retryAfter: '30' });

    const error = await refusal(url);

    expect(error).toBeInstanceOf(RateLimitError);
    expect(error).not.toBeInstanceOf(ReplyLimitedError);
  });
});
