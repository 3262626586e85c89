/**
 * The platform-apiserver command: flags -> config -> start; signals -> graceful shutdown.
 *
 * Exit codes: 0 after --help or a graceful shutdown; 2 for a command-line mistake (one line on stderr);
 * 1 when start-up fails (bad token file, port in use, store unreachable) or a second signal forces exit.
 */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { FlagError } from './config/flag-error.js';
import { helpText } from './config/help.js';
import { parseFlags } from './config/parse-flags.js';
import { buildConfig, type ServerConfig } from './config/server-config.js';
import { readBuildInfo } from './endpoints/build-info.js';
import { createLogger } from './log/logger.js';
import { startServer } from './server/start-server.js';

const program = 'platform-apiserver';

async function main(argv: readonly string[]): Promise<void> {
  let config: ServerConfig;
  try {
    const flags = parseFlags(argv);
    if (flags.help) {
      process.stdout.write(helpText(program));
      return;
    }
    config = buildConfig(flags);
  } catch (err) {
    if (err instanceof FlagError) {
      process.stderr.write(`${program}: ${err.message}\n`);
      process.exit(2);
    }
    throw err;
  }

  const logger = createLogger({ level: config.logLevel });
  const mainFile = fileURLToPath(import.meta.url);
  const build = readBuildInfo(repoRoot(dirname(mainFile)), mainFile);

  let server: Awaited<ReturnType<typeof startServer>>;
  try {
    server = await startServer(config, { logger, build });
  } catch (err) {
    logger.error({ err }, 'start-up failed');
    process.stderr.write(`${program}: start-up failed: ${(err as Error).message}\n`);
    process.exit(1);
  }

  if (server.kubeconfigPath !== undefined) {
    process.stdout.write(`\nServing on ${server.url}. To use kubectl with it:\n\n  export KUBECONFIG=${server.kubeconfigPath}\n\n`);
  }

  let signalled = false;
  const onSignal = (signal: NodeJS.Signals): void => {
    if (signalled) {
      logger.warn({ signal }, 'second signal: exiting now');
      process.exit(1);
    }
    signalled = true;
    logger.info({ signal }, 'signal received: graceful shutdown (send it again to force)');
    server.close().then(
      () => process.exit(0),
      (err: unknown) => {
        logger.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
}

/** The directory holding package.json above `dir` (the repo root, from `dist/apiserver` or `apiserver`). */
function repoRoot(dir: string): string {
  for (let d = dir; ; d = dirname(d)) {
    if (existsSync(join(d, 'package.json'))) return d;
    if (dirname(d) === d) return dir;
  }
}

main(process.argv.slice(2)).catch((err: unknown) => {
  process.stderr.write(`${program}: ${(err as Error)?.stack ?? String(err)}\n`);
  process.exit(1);
});
