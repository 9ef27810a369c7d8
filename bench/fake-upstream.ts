// The load test's upstream, in a process of its own so that it does not share an event loop with the load generator:
// the fake provider on 127.0.0.1 at a hosted model's pace. Prints its base URL.
import { startFakeProvider } from '../testing/fake-provider.ts';

/** A short reply from a fast hosted model: 50 ms to the whole answer, or to the first of its 5 streamed pieces. */
const provider = await startFakeProvider({ record: false });
provider.respondWith({ content: 'Hello from the fake provider', delayMs: 50, pieceDelayMs: 10 });
console.log(provider.baseURL);
