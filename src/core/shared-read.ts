/**
 * A read kept for `ttlMs` on this instance, measured on `now`: callers within it share the one answer, and
 * concurrent callers of an expired (or never made) read share one call in flight. A failed read is not kept: the
 * next caller asks again. Catalogues go through it so that a flood of listings makes one provider call a period.
 */
export function sharedRead<T>(read: () => Promise<T>, ttlMs: number, now: () => number): () => Promise<T> {
  let kept: { value: T; at: number } | null = null;
  let inFlight: Promise<T> | null = null;
  return () => {
    const at = now();
    // A clock set back (a test's, or a database clock recalibrated) does not stretch the period.
    if (kept && at >= kept.at && at - kept.at < ttlMs) return Promise.resolve(kept.value);
    inFlight ??= read()
      .then((value) => {
        kept = { value, at: now() };
        return value;
      })
      .finally(() => {
        inFlight = null;
      });
    return inFlight;
  };
}
