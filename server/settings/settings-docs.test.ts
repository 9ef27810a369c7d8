// The documents that say they list every setting do: docs/configuration.md, .env.example and
// assistant.config.example.yaml, against the names the code reads (contract/settings.ts) and the configuration's
// schema (config-schema.ts). A name added to either without its line in each document fails here.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SETTING_NAMES } from '../../contract/settings.ts';
import { parseAssistantConfig } from './assistant-config.ts';
import { ACTION_KEYS } from './config-actions.ts';
import { HANDOFF_KEYS, KEY_NAMES, SOURCE_KEYS } from './config-schema.ts';

const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');
const sorted = (names: Iterable<string>) => [...new Set(names)].sort();

/** The names in backticks in the first cell of every table row of the page: a variable's or a key's own row. */
function tableNames(markdown: string): string[] {
  const rows = markdown.split('\n').filter((line) => line.startsWith('| `'));
  return rows.flatMap((row) => [...row.split('|')[1].matchAll(/`([^`]+)`/g)].map((match) => match[1]));
}

describe('the documents that list every setting', () => {
  const configuration = read('docs/configuration.md');
  const names = tableNames(configuration);

  it('docs/configuration.md has a row for every variable and every key, and for nothing else', () => {
    expect(sorted(names.filter((name) => /^[A-Z]/.test(name)))).toEqual(sorted(SETTING_NAMES));
    expect(sorted(names.filter((name) => /^[a-z]/.test(name)))).toEqual(sorted(KEY_NAMES));
    const knowledgeRow = configuration.split('\n').find((line) => line.startsWith('| `knowledge`')) ?? '';
    for (const key of SOURCE_KEYS) expect(knowledgeRow, key).toMatch(new RegExp(`\\b${key}\\b`));
    const actionsRow = configuration.split('\n').find((line) => line.startsWith('| `actions`')) ?? '';
    for (const key of ACTION_KEYS) expect(actionsRow, key).toMatch(new RegExp(`\\b${key}\\b`));
  });

  it('.env.example documents every variable', () => {
    const example = read('.env.example');
    for (const name of SETTING_NAMES) expect(example, name).toMatch(new RegExp(`^# ${name}=`, 'm'));
  });

  it('assistant.config.example.yaml shows every key, and what it comments out is valid too', () => {
    const example = read('assistant.config.example.yaml');
    const shown = [...example.matchAll(/^(?:# )?(\s*(?:- )?)([a-z_]+):/gm)];
    expect(sorted(shown.filter((match) => match[1] === '').map((match) => match[2]))).toEqual(sorted(KEY_NAMES));
    expect(sorted(shown.filter((match) => match[1] !== '').map((match) => match[2]))).toEqual(
      sorted([...SOURCE_KEYS, ...HANDOFF_KEYS, ...ACTION_KEYS]),
    );
    // Every commented-out key with its value on its line, uncommented (the knowledge list names folders that are not here).
    const keys = new RegExp(`^# ((?:${KEY_NAMES.join('|')}): \\S.*)$`, 'gm');
    const uncommented = example.replace(keys, '$1');
    expect(uncommented).not.toBe(example);
    expect(() => parseAssistantConfig(uncommented, 'example', { direct: false })).not.toThrow();
  });
});
