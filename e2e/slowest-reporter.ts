// Playwright loads a reporter by its file's default export.
import { PlaywrightSlowestFiles } from '../testing/slowest-files.ts';

export default PlaywrightSlowestFiles;
