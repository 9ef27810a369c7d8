import type { Plugin } from 'vite';

// A string in single or double quotes, and `+` joining several.
const STRING = String.raw`(?:'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*")`;
const DESCRIPTION = new RegExp(String.raw`\bdescription:\s*${STRING}(?:\s*\+\s*${STRING})*\s*,?`, 'g');

/** The machine's source without its states' `description`s. */
export function withoutDescriptions(source: string): string {
  return source.replace(DESCRIPTION, '');
}

/**
 * Drops the states' `description`s from the machines in a client build. They are for the Stately inspector and editor
 * (development only: the inspector never loads in a build) and the model's readers; the page never shows them, and
 * in the start-up code they cost about 250 B of gzip, which the owner's loop (votes on replies) needs instead.
 */
export function machineDescriptions(): Plugin {
  return {
    name: 'machine-descriptions',
    apply: 'build',
    transform(code, id) {
      if (/\/machines\/[\w-]+\.ts$/.test(id) && !id.endsWith('.test.ts')) return withoutDescriptions(code);
    },
  };
}
