import type { Logger } from 'vite';

/** A Vite logger that keeps every line it is given (info, warnings, errors), for a test to read. */
export function recordingLogger(): { logger: Logger; lines: string[] } {
  const lines: string[] = [];
  const record = (message: string) => void lines.push(message);
  const logger: Logger = {
    info: record,
    warn: record,
    warnOnce: record,
    error: record,
    clearScreen: () => undefined,
    hasErrorLogged: () => false,
    hasWarned: false,
  };
  return { logger, lines };
}
