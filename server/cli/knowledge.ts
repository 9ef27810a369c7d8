// `npm run knowledge -- <command>`: the site owner's commands on the site's pages, each in its own file beside this one.
import { askCommand } from './knowledge-ask.ts';

const COMMANDS: Record<string, (args: string[]) => Promise<number>> = { ask: askCommand };

const [name = '', ...args] = process.argv.slice(2);
const command = COMMANDS[name];
if (!command) {
  console.error(`Usage: npm run knowledge -- <command>. Commands: ${Object.keys(COMMANDS).join(', ')}.`);
  process.exit(2);
}
process.exit(await command(args));
