// pino JSON lines on stderr. The key is scrubbed at the sink, so no log call anywhere can leak it,
// whatever object it logs (errors with headers, request options...).

import { writeSync } from 'node:fs';
import { pino, type Logger } from 'pino';

export type { Logger };

export interface LoggerOptions {
  level: string;
  /** Strings that must never reach the output (the API key). */
  secrets?: Array<string | null | undefined>;
  /** Defaults to stderr (fd 2). */
  write?: (line: string) => void;
}

export function scrubSecrets(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const s of secrets) if (s.length >= 4) out = out.split(s).join('[redacted]');
  return out;
}

export function createLogger(opts: LoggerOptions): Logger {
  const secrets = (opts.secrets ?? []).filter((s): s is string => typeof s === 'string' && s.length > 0);
  const write = opts.write ?? ((line: string) => writeSync(2, line));
  const sink = { write: (line: string) => write(scrubSecrets(line, secrets)) };
  return pino(
    {
      level: opts.level,
      base: { name: 'wbsync' },
      timestamp: pino.stdTimeFunctions.isoTime,
      redact: { paths: ['apiKey', '*.apiKey', 'headers["x-api-key"]', '*.headers["x-api-key"]'], censor: '[redacted]' },
    },
    sink,
  );
}
