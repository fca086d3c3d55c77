// pino JSON lines on stderr. The key is scrubbed at the sink, so no log call anywhere can leak it,
// whatever object it logs (errors with headers, request options...). On a terminal a line is
// rendered for a person instead (time, level, message, then its fields as key=value).

import { writeSync } from 'node:fs';
import { pino, type Logger } from 'pino';
import { hasHiddenCharacters, shown, terminalText } from '../domain/display-text.js';
import { scrubSecrets } from './scrub-secrets.js';

export type { Logger };

export interface LoggerOptions {
  level: string;
  /** Strings that must never reach the output (the API key). */
  secrets?: Array<string | null | undefined>;
  /** Defaults to stderr (fd 2). */
  write?: (line: string) => void;
  /** Render each line for a person (a terminal) instead of JSON. */
  readable?: boolean;
}

const LEVEL_NAMES: Record<number, string> = { 10: 'TRACE', 20: 'DEBUG', 30: 'INFO', 40: 'WARN', 50: 'ERROR', 60: 'FATAL' };

/** A field's value: a plain word as is, else JSON (quoted, its newlines and backslashes escaped). */
function fieldText(v: unknown): string {
  if (typeof v === 'string') return /^[^\s"=\\]+$/.test(v) && !hasHiddenCharacters(v) ? v : JSON.stringify(v);
  return JSON.stringify(v) ?? String(v);
}

/** One pino JSON line as a person reads it: `14:02:07 WARN message  key=value …`. */
export function readableLine(jsonLine: string): string {
  let o: Record<string, unknown>;
  try {
    o = JSON.parse(jsonLine) as Record<string, unknown>;
  } catch {
    return jsonLine;
  }
  const { level, time, msg, pid: _pid, hostname: _host, ...rest } = o;
  if (rest.name === 'wbsync') delete rest.name;
  const at = typeof time === 'string' ? time.slice(11, 19) : '';
  const lvl = LEVEL_NAMES[Number(level)] ?? String(level);
  const fields = Object.entries(rest).map(([k, v]) => `${k}=${fieldText(v)}`);
  // control characters, bidi controls and invisible characters from the service never reach the terminal raw
  // (display-text.ts); the message stays on its line (shown: a name in it cannot fake a log line)
  const text = [at, lvl, shown(String(msg ?? ''))].filter(Boolean).join(' ') + (fields.length ? `  ${fields.join(' ')}` : '');
  return `${terminalText(text)}\n`;
}

export function createLogger(opts: LoggerOptions): Logger {
  const secrets = (opts.secrets ?? []).filter((s): s is string => typeof s === 'string' && s.length > 0);
  const write = opts.write ?? ((line: string) => writeSync(2, line));
  // on a terminal a line first clears a progress line that may stand there (it is redrawn on its next update)
  const sink = { write: (line: string) => write(opts.readable ? `\r\x1b[K${readableLine(scrubSecrets(line, secrets))}` : scrubSecrets(line, secrets)) };
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
