import { AssistantConfigError } from './config-file.ts';
import { EnvError } from './env.ts';

/** How `npm start`, `npm run dev` and `npm run build` print a problem that stops them: its message, no stack trace. */
export function startupFailure(error: unknown): string {
  return `[server] ${error instanceof Error ? error.message : String(error)}`;
}

/**
 * For Vite's hooks: a configuration error ends the command with exactly what `npm start` prints, since Vite would
 * print the error's stack and every property of it. Anything else is thrown on, for Vite to report.
 */
export function exitOnConfigError(error: unknown): never {
  if (error instanceof AssistantConfigError || error instanceof EnvError) {
    console.error(startupFailure(error));
    process.exit(1);
  }
  throw error;
}
