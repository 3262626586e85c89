/**
 * What the embedded store logs through: a structured logger taking fields and a message, the shape of the
 * server's pino logger (`logger.warn({ path }, 'message')`), so the store's lines are JSON lines like every
 * other log line. `storage/` does not import `apiserver/`: the server hands its logger in through
 * `MemoryStoreOptions.logger` (storage/open-store.ts).
 */
export interface StoreLogger {
  info(fields: Record<string, unknown>, message: string): void;
  warn(fields: Record<string, unknown>, message: string): void;
}

/**
 * The logger used when none is given (tests, benchmarks, tools): warnings as one JSON line each on stderr,
 * with pino's level numbers and field names so the lines read like the server's; info (what was recovered
 * at each open) is dropped, as it would be on every store a test opens.
 */
export const stderrStoreLogger: StoreLogger = {
  info: () => undefined,
  warn: (fields, message) => writeLine(40, fields, message),
};

function writeLine(level: number, fields: Record<string, unknown>, message: string): void {
  process.stderr.write(`${JSON.stringify({ level, time: Date.now(), component: 'memory-store', ...fields, msg: message })}\n`);
}
