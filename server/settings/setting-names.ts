import { DEFAULT_PROXY_TIMEOUT_MS, DEFAULT_TIMEOUT_MS } from '../../contract/llm.ts';
import { SETTING_NAMES, SETTING_PREFIXES, type SettingName } from '../../contract/settings.ts';

const KNOWN = new Set<string>(SETTING_NAMES);

/** The fewest single-letter insertions, deletions and substitutions that turn `a` into `b` (Levenshtein). */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i += 1) {
    const current = [i];
    for (let j = 1; j <= b.length; j += 1) {
      current[j] = Math.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length];
}

/** The name of `known` that `name` was most likely meant to be: the closest, within a few letters. */
export function closestName<T extends string>(name: string, known: readonly T[]): T | undefined {
  let best: { name: T; distance: number } | undefined;
  for (const candidate of known) {
    const distance = editDistance(name, candidate);
    if (distance <= 3 && (!best || distance < best.distance)) best = { name: candidate, distance };
  }
  return best?.name;
}

/** Settings too common a word to guess from: a variable near one (`HOME`, `POST`) is most likely another program's. */
const COMMON = new Set<string>(['PORT', 'HOST']);

/**
 * Whether `name` looks meant for this product: it starts like its settings, or is within a quarter of its letters of
 * one of them, whatever it starts with (`BASE_PAHT`, `MAX_CONECTIONS`).
 */
function looksLikeSetting(name: string): boolean {
  const upper = name.toUpperCase();
  if (SETTING_PREFIXES.some((prefix) => upper.startsWith(prefix))) return true;
  const allowed = Math.floor(upper.length / 4);
  return SETTING_NAMES.some((setting) => !COMMON.has(setting) && editDistance(upper, setting) <= allowed);
}

/**
 * OpenTelemetry's standard variables (`OTEL_EXPORTER_OTLP_HEADERS`, `OTEL_BSP_SCHEDULE_DELAY`, …), which its exporter
 * reads itself: not misspelt settings of ours, unless within two letters of one (`OTEL_SERVICE_NAM`).
 */
function isOpenTelemetrys(name: string): boolean {
  return (
    name.startsWith('OTEL_') &&
    !SETTING_NAMES.some((setting) => setting.startsWith('OTEL_') && editDistance(name, setting) <= 2)
  );
}

/** The setting `name` was most likely meant to be. */
const likelyName = (name: string): SettingName | undefined => closestName(name.toUpperCase(), SETTING_NAMES);

function timeout(value: string | undefined, fallback: number): number | undefined {
  const raw = value?.trim();
  if (!raw) return fallback;
  return /^\d+$/.test(raw) ? Number(raw) : undefined;
}

/**
 * What is worth saying about the names in the environment at start-up (`npm start`, `npm run dev`, `npm run build`):
 * a variable that looks like one of the product's but is none of them (a misspelt setting would otherwise be
 * ignored without a word), with the likely name when one is close; and a server deadline that the page's would cut
 * short.
 */
export function settingNotices(env: Record<string, string | undefined>): string[] {
  const notices: string[] = [];
  for (const name of Object.keys(env).sort()) {
    if (KNOWN.has(name) || isOpenTelemetrys(name) || !looksLikeSetting(name)) continue;
    const likely = likelyName(name);
    notices.push(
      `${name} is not a setting of AI Assistant and is ignored` +
        (likely ? `: did you mean ${likely}?` : ' (every setting is in .env.example).'),
    );
  }
  const server = timeout(env.LLM_TIMEOUT_MS, DEFAULT_PROXY_TIMEOUT_MS);
  const page = timeout(env.VITE_LLM_TIMEOUT_MS, DEFAULT_TIMEOUT_MS);
  if (server !== undefined && page !== undefined && server >= page) {
    notices.push(
      `LLM_TIMEOUT_MS (${server} ms) is not below the page's VITE_LLM_TIMEOUT_MS (${page} ms): the page gives up ` +
        "first, so a visitor gets its timeout instead of the server's answer. Set LLM_TIMEOUT_MS lower.",
    );
  }
  return notices;
}
