// The Node project's setup, before each of its files: the library's workers start from this run's bundle of their
// source rather than through tsx (see startWorkersFrom).
import { inject } from 'vitest';
import { startWorkersFrom } from '../server/knowledge/workers/start-worker.ts';

startWorkersFrom(inject('knowledgeBundle'));
