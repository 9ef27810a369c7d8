// A process that takes the knowledge store's sync lock and keeps it until it is killed: the lock tests kill it (as a
// crash would) and check that the lock is free again. Run from the test run's bundle (testing/server-build-setup.ts)
// or with `node --import tsx`; argument: the store settings as JSON. It prints `held` once it holds the lock.
import { openKnowledgeStore } from '../server/knowledge/knowledge.ts';

const store = openKnowledgeStore(JSON.parse(process.argv[2]), (line) => console.error(line));
const outcome = await store.withSyncLock(async () => {
  console.log('held');
  // Alive until killed: a pending promise alone would not keep the process (nor its lease) going.
  await new Promise(() => setInterval(() => {}, 60_000));
});
if (!outcome.ran) console.log('busy');
