import '@testing-library/jest-dom/vitest';
import { cleanup } from '@testing-library/react';
import { afterEach } from 'vitest';
import { loadReplyStatus } from './src/chat/reply-status';

// The app loads its reply-status components after the first render; the tests render with them already in.
await loadReplyStatus();

afterEach(() => {
  cleanup();
});
