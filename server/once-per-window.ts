/**
 * Whether a key is seen for the first time in `windowMs`: what keeps a log line to once per client or origin per
 * window. Keys are kept in the order first seen, so the expired ones are always at the front: memory holds only the
 * keys of the last window, and with `maxKeys` at most that many (the oldest is forgotten first), so that made-up keys
 * cannot grow it without end.
 */
export function oncePerWindow(
  windowMs: number,
  now: () => number = Date.now,
  maxKeys = Number.POSITIVE_INFINITY,
): (key: string) => boolean {
  const seen = new Map<string, number>();
  return (key) => {
    const time = now();
    for (const [old, at] of seen) {
      if (time - at < windowMs) break;
      seen.delete(old);
    }
    if (seen.has(key)) return false;
    seen.set(key, time);
    if (seen.size > maxKeys) seen.delete(seen.keys().next().value as string);
    return true;
  };
}
