/** Where the service reads the time: the database's clock in production (src/db/clock.ts), a fixed one in tests. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };
