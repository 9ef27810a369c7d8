// `npm run knowledge -- <command>`: the owner's commands on the site's pages. Each command lives in a file of its own
// beside this one; this file only picks it and exits with its code.
import { askCommand } from './knowledge-ask.ts';
import { reportCommand } from './knowledge-report.ts';
import { syncCommand } from './knowledge-sync.ts';

const COMMANDS: Record<string, (args: string[]) => Promise<number>> = {
  sync: syncCommand,
  report: reportCommand,
  ask: askCommand,
};

const [name = '', ...args] = process.argv.slice(2);
const command = COMMANDS[name];
if (command) process.exitCode = await command(args);
else {
  console.error(`Usage: npm run knowledge -- <${Object.keys(COMMANDS).join('|')}> (got "${name}")`);
  process.exitCode = 2;
}
