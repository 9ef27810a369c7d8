import { DEFAULT_BASE_URL, DEFAULT_MODEL } from '../../contract/llm.ts';
import type { Upstream } from '../hono-env.ts';
import { type Env, isLoopback, readFlag } from './env-values.ts';

/** A build made with `VITE_LLM_API_KEY`, as the client build records it (see `BUILD_INFO_FILE`). */
export interface DirectBuild {
  providerOrigin: string;
}

/** A provider reached over plain http beyond this machine sees the token and every message in clear on the way. */
function plainHttpNotice(name: string, url: URL, notices: string[]): void {
  if (url.protocol !== 'http:' || isLoopback(url.hostname)) return;
  notices.push(
    `${name} is plain http to ${url.host}: the provider token and every message cross the network unencrypted. ` +
      'Use https unless that host is on a network you trust.',
  );
}

function baseURL(env: Env, problems: string[], notices: string[]): string {
  const raw = env.LLM_BASE_URL?.trim() || DEFAULT_BASE_URL;
  try {
    const url = new URL(raw);
    if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new Error();
    plainHttpNotice('LLM_BASE_URL', url, notices);
    if (url.username || url.password) {
      // fetch refuses such URLs, and they would be printed in the start-up line.
      problems.push('LLM_BASE_URL must not contain credentials: put the token in LLM_API_KEY');
    }
    return raw;
  } catch {
    problems.push(`LLM_BASE_URL must be an http(s) URL such as ${DEFAULT_BASE_URL} (got "${raw}")`);
    return DEFAULT_BASE_URL;
  }
}

/**
 * What answers chat requests: `LLM_DEMO`, `LLM_API_KEY`, `LLM_BASE_URL` and `LLM_MODEL`, or nothing for a direct-mode
 * build. Without `LLM_API_KEY` this is a problem unless `LLM_DEMO=1` asks for the demo responder, so a production
 * deployment never answers visitors with demo text by accident; `demoFallback` turns that refusal into the demo
 * responder with a notice instead.
 */
export function readUpstream(
  env: Env,
  { demoFallback, directBuild }: { demoFallback: boolean; directBuild?: DirectBuild },
  problems: string[],
  notices: string[],
): Upstream {
  const demo = readFlag(env, 'LLM_DEMO', problems);
  const apiKey = env.LLM_API_KEY?.trim() ?? '';
  const model = env.LLM_MODEL?.trim() || DEFAULT_MODEL;
  const url = baseURL(env, problems, notices);

  let upstream: Upstream;
  if (demo) {
    upstream = { kind: 'demo' };
    if (apiKey) notices.push('LLM_DEMO=1 is set, so LLM_API_KEY is ignored and the demo responder answers.');
  } else if (apiKey) {
    upstream = { kind: 'provider', baseURL: url, apiKey, model };
  } else if (directBuild) {
    // The page calls its provider itself: there is nothing to proxy, and no server token to ask for.
    upstream = { kind: 'none' };
  } else if (demoFallback) {
    upstream = { kind: 'demo' };
    notices.push(
      'No LLM_API_KEY is set, so the built-in demo responder answers chat requests. ' +
        'Put LLM_API_KEY (and optionally LLM_BASE_URL, LLM_MODEL) in .env to talk to a real model.',
    );
  } else {
    upstream = { kind: 'demo' };
    problems.push('LLM_API_KEY is not set. Set it to the provider token, or set LLM_DEMO=1 to run the demo responder.');
  }

  if (directBuild) {
    notices.push(
      `This is a direct-mode build: the page calls ${directBuild.providerOrigin} itself with the provider token ` +
        'embedded in its JavaScript, where every visitor can read it. Rebuild without VITE_LLM_API_KEY (proxy mode) ' +
        'to keep the token secret.',
    );
    plainHttpNotice("The direct-mode build's VITE_LLM_BASE_URL", new URL(directBuild.providerOrigin), notices);
  }
  return upstream;
}

/** One line that says what the server forwards to: origin and path only, never the token. */
export function describeUpstream(upstream: Upstream): string {
  if (upstream.kind === 'demo') return 'demo responder (no provider; replies are canned)';
  if (upstream.kind === 'none') return 'direct-mode build (the page calls its provider itself; no chat proxy)';
  const url = new URL(upstream.baseURL);
  return `proxy to ${url.origin}${url.pathname.replace(/\/+$/, '')} (model ${upstream.model})`;
}
