import { pino, type DestinationStream, type Logger } from 'pino';

export type { Logger } from 'pino';

/**
 * Field paths whose values never reach the log, wherever a caller puts them by mistake: credentials in
 * headers, tokens, passwords, keys. pino censors them at serialization, so the rule holds for every line.
 */
export const redactPaths: readonly string[] = [
  'authorization', '*.authorization', '*.*.authorization',
  'Authorization', '*.Authorization', '*.*.Authorization',
  'token', '*.token', 'password', '*.password', 'secret', '*.secret',
  'privateKey', '*.privateKey', 'key', '*.key', 'cookie', '*.cookie', '*.*.cookie',
];

export interface LoggerOptions {
  readonly level: string;
  /** Where lines go; default stderr (fd 2), written synchronously so the last lines survive `exit()`. */
  readonly destination?: DestinationStream;
}

/**
 * A structured logger: one JSON object per line, `level` as a label, `time` in ISO 8601, `msg`.
 * Child loggers add fields (`logger.child({ component: 'compactor' })`).
 */
export function createLogger(options: LoggerOptions): Logger {
  return pino(
    {
      level: options.level,
      base: { component: 'apiserver' },
      messageKey: 'msg',
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      redact: { paths: [...redactPaths], censor: '[REDACTED]' },
    },
    options.destination ?? pino.destination({ dest: 2, sync: true }),
  );
}

/** A logger that drops everything (tests that do not look at logs). */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}
