import '@testing-library/jest-dom/vitest';
import { cleanup } from '@testing-library/react';
import { afterEach } from 'vitest';
import { en } from './locales/en';
import { loadReplyStatus } from './src/chat/reply-status';
import { setCatalogue } from './src/text';

// The unit tests read the card in English, the specification's texts.
setCatalogue(en);

// The app loads its reply-status components after the first render; the tests render with them already in.
await loadReplyStatus();

afterEach(() => {
  cleanup();
});
