/**
 * The one rule for which errors are transient: the network, a provider or the database away, slow or busy now.
 * Such an error is logged as one line naming its cause (message, code, address); its stack is left out, since it
 * shows only a driver's frames and is the same every time. Any other error may be a bug and keeps its stack.
 *
 * Transient, where the error or any error it wraps (`cause`, grammY's `error`, an AggregateError's `errors`) is:
 * - a connection refused, reset, aborted or timed out, a host or network unreachable or unresolvable, a broken pipe
 *   (Node's codes), undici's connect, headers, body and socket failures, a timeout signal (`TimeoutError`);
 * - PostgreSQL's connection exceptions (08…), the server shutting down or starting (57P01–57P03), too many
 *   connections (53300), a statement cancelled by its bound (57014), pg's pool or client losing its connection
 *   ("timeout exceeded when trying to connect", "Connection terminated…");
 * - SQLite busy or locked (SQLITE_BUSY…, SQLITE_LOCKED…); a statement past the service's own bound
 *   (STATEMENT_TIMEOUT, src/db/faults.ts).
 */
const CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ECONNABORTED",
  "ETIMEDOUT",
  "EPIPE",
  "EHOSTUNREACH",
  "EHOSTDOWN",
  "ENETUNREACH",
  "ENETDOWN",
  "ENOTFOUND",
  "EAI_AGAIN",
  "UND_ERR_CONNECT_TIMEOUT",
  "UND_ERR_HEADERS_TIMEOUT",
  "UND_ERR_BODY_TIMEOUT",
  "UND_ERR_SOCKET",
  "STATEMENT_TIMEOUT",
  "57P01",
  "57P02",
  "57P03",
  "53300",
  "57014",
]);
const CODE_PATTERNS = [/^08/, /^SQLITE_BUSY/, /^SQLITE_LOCKED/];
const MESSAGES = /^(timeout exceeded when trying to connect|Connection terminated|Client has encountered a connection error)/;

type Fault = Error & { code?: unknown; cause?: unknown; error?: unknown; errors?: unknown };

function isTransient(error: Fault): boolean {
  const code = typeof error.code === "string" ? error.code : "";
  return CODES.has(code) || CODE_PATTERNS.some((pattern) => pattern.test(code)) || error.name === "TimeoutError" || MESSAGES.test(error.message);
}

/** The error and those it wraps, outermost first (a few levels: a chain is never long, a cycle must not loop). */
function chain(error: unknown, depth = 0): Fault[] {
  if (depth > 5 || !(error instanceof Error)) return [];
  const fault = error as Fault;
  const inner = [fault.cause, fault.error, ...(Array.isArray(fault.errors) ? fault.errors.slice(0, 1) : [])];
  return [fault, ...inner.flatMap((wrapped) => chain(wrapped, depth + 1))];
}

/** Where a network error was going (Node's `address`/`port`, a DNS error's `hostname`) and its code, from its chain. */
function whereOf(error: Error): Record<string, unknown> {
  const found = chain(error) as Array<Fault & Record<string, unknown>>;
  const out: Record<string, unknown> = {};
  for (const key of ["code", "syscall", "address", "port", "hostname"]) {
    const value = found.find((e) => e[key] !== undefined && e[key] !== null)?.[key];
    if (value !== undefined) out[key] = value;
  }
  return out;
}

/**
 * A transient error as its log line carries it: what it is and its cause (the outermost transient error in its
 * chain, with the code and the address found under it), without a stack; null when it is not transient.
 */
export function transientFields(error: unknown): Record<string, unknown> | null {
  const [top, ...inner] = chain(error);
  if (!top) return null;
  if (isTransient(top)) return { type: top.name, message: top.message, transient: true, ...whereOf(top) };
  const cause = inner.find(isTransient);
  if (!cause) return null;
  const code = top.code;
  return {
    type: top.name,
    message: top.message,
    ...(code !== undefined ? { code } : {}),
    transient: true,
    cause: { type: cause.name, message: cause.message, ...whereOf(cause) },
  };
}
