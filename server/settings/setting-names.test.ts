import { describe, expect, it } from 'vitest';
import { SETTING_NAMES, SETTING_PREFIXES } from '../../contract/settings.ts';
import { settingNotices } from './setting-names.ts';

describe('the names in the environment', () => {
  it('names a misspelt setting and the one it was likely meant to be', () => {
    expect(settingNotices({ FRAME_ANCESTOR: 'self', RATE_LIMIT_PER_MINUT: '5', vite_llm_model: 'x' })).toEqual([
      'FRAME_ANCESTOR is not a setting of AI Assistant and is ignored: did you mean FRAME_ANCESTORS?',
      'RATE_LIMIT_PER_MINUT is not a setting of AI Assistant and is ignored: did you mean RATE_LIMIT_PER_MINUTE?',
      'vite_llm_model is not a setting of AI Assistant and is ignored: did you mean VITE_LLM_MODEL?',
    ]);
  });

  it('names a misspelt setting whatever it starts with, every setting but PORT and HOST', () => {
    expect(settingNotices({ BASE_PAHT: '/assistant', MAX_CONECTIONS: '100' })).toEqual([
      'BASE_PAHT is not a setting of AI Assistant and is ignored: did you mean BASE_PATH?',
      'MAX_CONECTIONS is not a setting of AI Assistant and is ignored: did you mean MAX_CONNECTIONS?',
    ]);
    // Two letters of each setting swapped (past its first four, which a prefix would catch).
    for (const name of SETTING_NAMES.filter((setting) => setting !== 'PORT' && setting !== 'HOST')) {
      const at = Math.max(4, name.length - 3);
      const typo = name.slice(0, at) + name[at + 1] + name[at] + name.slice(at + 2);
      if (typo !== name)
        expect(settingNotices({ [typo]: '1' }), typo).toEqual([
          `${typo} is not a setting of AI Assistant and is ignored: did you mean ${name}?`,
        ]);
    }
    // Another program's variables that are near a setting only as short words are (HOME, HOST).
    const env = {
      HOME: '/root',
      PATH: '/bin',
      POST: '1',
      PWD: '/',
      TERM: 'xterm',
      LANG: 'C',
      HOSTNAME: 'a',
      SHELL: 'sh',
    };
    expect(settingNotices(env)).toEqual([]);
  });

  it('names a variable with one of its prefixes that is like no setting, and leaves every other variable alone', () => {
    expect(
      settingNotices({ LLM_PROVIDER_REGION: 'eu', PATH: '/bin', NODE_ENV: 'production', npm_lifecycle_event: 'start' }),
    ).toEqual([
      'LLM_PROVIDER_REGION is not a setting of AI Assistant and is ignored (every setting is in .env.example).',
    ]);
  });

  it("leaves OpenTelemetry's own variables alone, its exporter reads them, but names a near miss of ours", () => {
    const otel = {
      OTEL_EXPORTER_OTLP_HEADERS: 'x-key=1',
      OTEL_EXPORTER_OTLP_TIMEOUT: '5000',
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://127.0.0.1:4318/v1/traces',
      OTEL_BSP_SCHEDULE_DELAY: '100',
    };
    expect(settingNotices(otel)).toEqual([]);
    expect(settingNotices({ OTEL_SERVICE_NAM: 'shop' })).toEqual([
      'OTEL_SERVICE_NAM is not a setting of AI Assistant and is ignored: did you mean OTEL_SERVICE_NAME?',
    ]);
  });

  it('says nothing about the settings themselves', () => {
    const every = Object.fromEntries(SETTING_NAMES.map((name) => [name, '1']));
    expect(settingNotices({ ...every, VITE_LLM_TIMEOUT_MS: '2' })).toEqual([]);
  });

  it("says when the server's deadline is not below the page's, the defaults included", () => {
    expect(settingNotices({ LLM_TIMEOUT_MS: '30000' })).toEqual([
      expect.stringMatching(/^LLM_TIMEOUT_MS \(30000 ms\) is not below the page's VITE_LLM_TIMEOUT_MS \(30000 ms\)/),
    ]);
    expect(settingNotices({ VITE_LLM_TIMEOUT_MS: '20000' })).toHaveLength(1);
    expect(settingNotices({ LLM_TIMEOUT_MS: '25000', VITE_LLM_TIMEOUT_MS: '25001' })).toEqual([]);
    expect(settingNotices({})).toEqual([]);
  });

  // Every setting's line in .env.example is checked with the other documents (settings-docs.test.ts).
  it('has every prefix used by a setting', () => {
    for (const prefix of SETTING_PREFIXES) {
      expect(
        SETTING_NAMES.some((name) => name.startsWith(prefix)),
        prefix,
      ).toBe(true);
    }
  });
});
