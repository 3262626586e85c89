/**
 * A command-line mistake (unknown flag, bad value, contradictory flags). `main` prints the message as one
 * line on stderr and exits with code 2, as Go's flag packages do; no stack trace.
 */
export class FlagError extends Error {
  override readonly name = 'FlagError';
}
