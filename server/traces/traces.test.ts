// Opt-in traces (issue 50), end to end: the built server, started as `npm start` runs it, sends its spans over
// OTLP/HTTP to a receiver on 127.0.0.1 for a streamed chat over a knowledge site, through the fake provider; and
// without OTEL_EXPORTER_OTLP_ENDPOINT it does not load one module of the OpenTelemetry SDK.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHAT_COMPLETIONS_PATH } from '../../contract/llm.ts';
import { type KnowledgeSite, startKnowledgeSite } from '../../testing/knowledge-site.ts';
import { type OtlpReceiver, type ReceivedSpan, startOtlpReceiver } from '../../testing/otlp-receiver.ts';
import type { ProductionServer } from '../../testing/production-app.ts';
import { productionHarness, TEST_TIMEOUT_MS, until } from '../../testing/production-harness.ts';
import { GEN_AI_CONVENTIONS } from './traces.ts';

const { provider, startServer } = productionHarness('traces');

const API_KEY = 'test-traces-key-NEVER-IN-A-SPAN-41c9';
const VISITOR_TEXT = 'Quand ouvre la boutique ZORBLAX-VISITOR-TEXT ?';
const PAGE_TEXT = 'The Acme shop opens weekdays from nine to five QUOKKA-PAGE-TEXT.';
const QUERY_VALUE = 'GRIMBLE-QUERY-VALUE';
const COLLECTOR_PASSWORD = 'collector-PASSWORD-77ab';
const SEARCH_WORDS = 'shop opening hours weekdays';

let dir: string;
let site: KnowledgeSite;
let receiver: OtlpReceiver;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'traces-'));
  receiver = await startOtlpReceiver();
  site = await startKnowledgeSite({
    '/robots.txt': { body: 'User-agent: *\nAllow: /\n', type: 'text/plain' },
    '/hours': {
      body: `<html lang="en"><head><title>Opening hours</title></head><body><main><h1>Opening hours</h1><p>${PAGE_TEXT}</p></main></body></html>`,
    },
  });
  site.set('/sitemap.xml', {
    body: `<urlset><url><loc>${site.origin}/hours</loc></url></urlset>`,
    type: 'application/xml',
  });
  await writeFile(join(dir, 'site.yaml'), `knowledge:\n  - sitemap: ${site.origin}/sitemap.xml\n`);
});
afterAll(async () => {
  await Promise.all([site.close(), receiver.close()]);
  await rm(dir, { recursive: true, force: true });
});

/** Logs every module the server's process resolves into `file` (a loader hook given with NODE_OPTIONS). */
async function moduleLog(name: string): Promise<{ env: Record<string, string>; read: () => Promise<string[]> }> {
  const file = join(dir, `${name}.log`);
  const hooks = join(dir, `${name}-hooks.mjs`);
  await writeFile(
    hooks,
    `import { appendFileSync } from 'node:fs';\nexport async function resolve(specifier, context, next) {\n` +
      `  const resolved = await next(specifier, context);\n  appendFileSync(${JSON.stringify(file)}, resolved.url + '\\n');\n` +
      '  return resolved;\n}\n',
  );
  const register = join(dir, `${name}-register.mjs`);
  await writeFile(
    register,
    `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(hooks).href)});\n`,
  );
  await writeFile(file, '');
  return {
    env: { NODE_OPTIONS: `--import=${pathToFileURL(register).href}` },
    read: async () => (await readFile(file, 'utf8')).split('\n').filter(Boolean),
  };
}

const OTEL_MODULE = /node_modules\/(@opentelemetry|@hono\/otel)\//;

async function readyWithKnowledge(server: ProductionServer): Promise<void> {
  await until(
    async () => (await fetch(`${server.url}/readyz`)).status,
    (status) => status === 200,
    'the index',
  );
}

function streamedChat(server: ProductionServer): Promise<Response> {
  return fetch(`${server.url}${CHAT_COMPLETIONS_PATH}?q=${QUERY_VALUE}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ messages: [{ role: 'user', content: VISITOR_TEXT }], stream: true, language: 'fr' }),
  });
}

const named = (spans: ReceivedSpan[], name: string) => spans.filter((span) => span.name === name);

describe('traces', () => {
  it(
    'go to the collector: the request, its retrieval and model calls as children, with GenAI counts and no text',
    async () => {
      const endpoint = receiver.endpoint.replace('http://', `http://collector:${COLLECTOR_PASSWORD}@`);
      const server = await startServer({
        LLM_API_KEY: API_KEY,
        LLM_MODEL: 'test/model-7b',
        ASSISTANT_CONFIG: join(dir, 'site.yaml'),
        OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
        OTEL_SERVICE_NAME: 'shop-assistant',
        // The batch's delay, as the SDK reads it: spans leave 50 ms after they end, not 5 s.
        OTEL_BSP_SCHEDULE_DELAY: '50',
      });
      await readyWithKnowledge(server);
      // The search words first (asked, as the visitor writes French and the pages are English), then the reply.
      provider().queue({ content: SEARCH_WORDS });
      const response = await streamedChat(server);
      expect(response.status).toBe(200);
      expect(await response.text()).toContain('data: [DONE]');

      const spans = await until(
        async () => receiver.spans,
        (all) =>
          named(all, 'chat test/model-7b').length === 2 && named(all, 'POST /api/llm/v1/chat/completions').length === 1,
        'the chat spans',
      );
      const [request] = named(spans, 'POST /api/llm/v1/chat/completions');
      const [retrieval] = named(spans, 'retrieval');
      const reply = named(spans, 'chat test/model-7b').find(
        (s) => s.attributes['ai_assistant.model_call.purpose'] === 'reply',
      );
      const words = named(spans, 'chat test/model-7b').find(
        (s) => s.attributes['ai_assistant.model_call.purpose'] === 'search-words',
      );
      if (!retrieval || !reply || !words) throw new Error(`Spans missing: ${spans.map((s) => s.name).join(', ')}`);

      // One trace: the request at its root, the retrieval and the reply under it, the search words under the retrieval.
      expect(request.parentSpanId).toBe('');
      expect(new Set([request, retrieval, reply, words].map((s) => s.traceId)).size).toBe(1);
      expect(retrieval.parentSpanId).toBe(request.spanId);
      expect(reply.parentSpanId).toBe(request.spanId);
      expect(words.parentSpanId).toBe(retrieval.spanId);

      expect(request.resource['service.name']).toBe('shop-assistant');
      expect(request.attributes).toMatchObject({
        'http.request.method': 'POST',
        'http.route': '/api/llm/v1/chat/completions',
        'http.response.status_code': 200,
      });
      expect(request.attributes['url.full']).toBe(`${server.url}${CHAT_COMPLETIONS_PATH}`);

      // The fake provider counts words: the reply's prompt is the instructions' and passages' words, so only > 0.
      expect(reply.attributes).toMatchObject({
        'gen_ai.operation.name': 'chat',
        'gen_ai.provider.name': 'openai',
        'gen_ai.request.model': 'test/model-7b',
        'gen_ai.response.finish_reasons': ['stop'],
        'gen_ai.usage.output_tokens': 5,
        'server.address': '127.0.0.1',
      });
      expect(reply.attributes['gen_ai.usage.input_tokens']).toBeGreaterThan(0);
      expect(reply.status).not.toBe(2);
      expect(words.attributes).toMatchObject({
        'gen_ai.operation.name': 'chat',
        'gen_ai.usage.output_tokens': SEARCH_WORDS.split(' ').length,
        'gen_ai.response.finish_reasons': ['stop'],
      });
      expect(retrieval.attributes).toEqual({
        'ai_assistant.retrieval.passages': 1,
        'ai_assistant.retrieval.search_words_called': true,
        'ai_assistant.retrieval.search_words_reason': 'language',
      });

      // Nothing of the conversation, the page, the token, the query's value or the collector's password, anywhere.
      const exported = receiver.bodies.join('\n');
      expect(receiver.requests.every((r) => r.path === '/v1/traces' && r.type === 'application/json')).toBe(true);
      for (const secret of ['ZORBLAX', 'QUOKKA', 'Hello from the fake provider', SEARCH_WORDS, API_KEY, QUERY_VALUE]) {
        expect(exported, secret).not.toContain(secret);
      }
      expect(exported).not.toContain(COLLECTOR_PASSWORD);
      expect(server.output.join('\n')).toContain(`traces to ${new URL(receiver.endpoint).host}`);
      expect(server.output.join('\n')).not.toContain(COLLECTOR_PASSWORD);
      expect(GEN_AI_CONVENTIONS).toBe('1.37.0');
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'are off without OTEL_EXPORTER_OTLP_ENDPOINT: not one module of the SDK is loaded, a chat included',
    async () => {
      const off = await moduleLog('off');
      const server = await startServer({ ASSISTANT_CONFIG: join(dir, 'site.yaml'), ...off.env });
      await readyWithKnowledge(server);
      expect((await streamedChat(server)).status).toBe(200);
      const modules = await off.read();
      // The log is real: the server's own modules and its dependencies are in it.
      expect(modules.some((url) => url.includes('node_modules/hono/'))).toBe(true);
      expect(modules.filter((url) => OTEL_MODULE.test(url))).toEqual([]);

      // And it would see them: with the endpoint set, the same log names the SDK.
      const on = await moduleLog('on');
      const traced = await startServer({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint, ...on.env });
      // The first request waits for the SDK to have loaded.
      expect((await fetch(`${traced.url}/healthz`)).status).toBe(200);
      expect((await on.read()).some((url) => url.includes('node_modules/@opentelemetry/sdk-trace-base/'))).toBe(true);
    },
    2 * TEST_TIMEOUT_MS,
  );
});
