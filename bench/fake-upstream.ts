// The load test's upstream, in a process of its own so that it does not share an event loop with the load generator:
// the fake provider on 127.0.0.1 at the pace it is given. Prints its base URL.
import { startFakeProvider } from '../testing/fake-provider.ts';

/**
 * A short reply: `delayMs` (first argument) to the whole answer, or to the first of its 5 streamed pieces, which then
 * come `pieceDelayMs` (second argument) apart.
 */
const [delayMs, pieceDelayMs] = process.argv.slice(2).map(Number);
const provider = await startFakeProvider({ record: false });
provider.respondWith({ content: 'Hello from the fake provider', delayMs, pieceDelayMs });
console.log(provider.baseURL);
