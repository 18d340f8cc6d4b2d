// 64-bit integers (ids, counts, money) become JavaScript numbers exactly or not at all, from either engine: a value
// a double cannot hold exactly is an error, never a rounding.

/** An integer as pg gives int8 and numeric (from sum()) and as SQLite's BigInt prints: exact, or a RangeError. */
export function exactInteger(text: string): number {
  const value = Number(text);
  if (!/^-?\d+$/.test(text) || !Number.isSafeInteger(value)) {
    throw new RangeError(`database value ${text} is not an integer JavaScript holds exactly`);
  }
  return value;
}

/** A value read as a double: an integer beyond 2^53 (which a double cannot hold exactly) is an error, never a rounding. */
export function exact(value: unknown, column: string): unknown {
  if (typeof value === "number" && Number.isInteger(value) && !Number.isSafeInteger(value)) {
    throw new RangeError(`database value ${value} in ${column} is not an integer JavaScript holds exactly`);
  }
  return value;
}

/**
 * A row as PostgreSQL's row_to_json writes it, for a statement that reads it together with something else: one
 * column for pg to parse instead of one per field (pg describes and parses every column on every execution).
 * Integers arrive as JSON numbers, so one beyond 2^53 (which a double cannot hold exactly) is an error, as in
 * every other read.
 */
export function rowFromJson<R>(text: string): R {
  const row = JSON.parse(text) as Record<string, unknown>;
  for (const column in row) exact(row[column], column);
  return row as R;
}
