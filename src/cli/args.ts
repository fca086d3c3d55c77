// Argument parsing for every command: known flags only, typed values, suggestions for typos.

import { WbsyncError } from '../domain/errors.js';

export type FlagType = 'boolean' | 'string' | 'number' | 'list';

export interface FlagSpec {
  name: string;
  type: FlagType;
  description: string;
  valueName?: string;
}

export interface PositionalSpec {
  name: string;
  description: string;
  required?: boolean;
  variadic?: boolean;
}

export type FlagValues = Record<string, string | boolean | number | string[] | undefined>;

export interface ParsedArgs {
  flags: FlagValues;
  positionals: string[];
}

/** Flags every command takes. */
export const COMMON_FLAGS: FlagSpec[] = [
  { name: 'config', type: 'string', valueName: 'FILE', description: 'config file (JSON); also WBSYNC_CONFIG' },
  { name: 'db', type: 'string', valueName: 'FILE', description: 'snapshot database; also WBSYNC_DB' },
  { name: 'log-level', type: 'string', valueName: 'LEVEL', description: 'fatal|error|warn|info|debug|trace|silent' },
  { name: 'json', type: 'boolean', description: 'print exactly one JSON document on stdout' },
  { name: 'help', type: 'boolean', description: 'show this help' },
];

const SECRET_FLAGS = new Set(['api-key', 'apikey', 'key', 'token', 'pit']);

export function levenshtein(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let prev = row[0];
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const tmp = row[j];
      row[j] = Math.min(row[j] + 1, row[j - 1] + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = tmp;
    }
  }
  return row[b.length];
}

/** The closest candidate within a small edit distance, or null. */
export function suggest(input: string, candidates: readonly string[]): string | null {
  let best: string | null = null;
  let bestD = Infinity;
  for (const c of candidates) {
    const d = c.startsWith(input) && input.length >= 2 ? 0.5 : levenshtein(input, c);
    if (d < bestD) {
      bestD = d;
      best = c;
    }
  }
  return best !== null && bestD <= Math.max(2, Math.floor(input.length / 3)) ? best : null;
}

function usageError(message: string, command: string): WbsyncError {
  return new WbsyncError('usage', message, { hint: `see 'wbsync ${command} --help'` });
}

export function parseArgs(
  argv: readonly string[],
  flags: readonly FlagSpec[],
  command: string,
  opts: { allowSecretFlags?: boolean } = {},
): ParsedArgs {
  const byName = new Map(flags.map((f) => [f.name, f]));
  const out: FlagValues = {};
  const positionals: string[] = [];
  let onlyPositionals = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (onlyPositionals || !arg.startsWith('--') || arg === '--') {
      if (arg === '--' && !onlyPositionals) onlyPositionals = true;
      else positionals.push(arg);
      continue;
    }
    const eq = arg.indexOf('=');
    const name = eq === -1 ? arg.slice(2) : arg.slice(2, eq);
    let inline: string | undefined = eq === -1 ? undefined : arg.slice(eq + 1);
    const spec = byName.get(name);
    if (!spec) {
      if (SECRET_FLAGS.has(name.toLowerCase()) && !opts.allowSecretFlags) {
        throw new WbsyncError('usage', `--${name}: the key is never accepted on the command line (it would leak into shell history and process lists)`, {
          hint: 'set WBSYNC_API_KEY, or WBSYNC_API_KEY_FILE to a file holding the key',
        });
      }
      const s = suggest(name, [...byName.keys()]);
      throw usageError(`unknown flag --${name} for '${command}'${s ? `; did you mean --${s}?` : ''}`, command);
    }
    if (spec.type === 'boolean') {
      if (inline !== undefined) throw usageError(`--${name} takes no value`, command);
      out[name] = true;
      continue;
    }
    if (inline === undefined) {
      const next = argv[i + 1];
      if (next === undefined || (next.startsWith('--') && next.length > 2)) {
        throw usageError(`--${name} needs a value (${spec.valueName ?? 'VALUE'})`, command);
      }
      inline = next;
      i++;
    }
    if (spec.type === 'number') {
      const n = Number(inline);
      if (inline.trim() === '' || !Number.isFinite(n)) throw usageError(`--${name} expects a number, got '${inline}'`, command);
      out[name] = n;
    } else if (spec.type === 'list') {
      const prev = out[name];
      out[name] = [...(Array.isArray(prev) ? prev : []), inline];
    } else {
      if (out[name] !== undefined) throw usageError(`--${name} given twice`, command);
      out[name] = inline;
    }
  }
  return { flags: out, positionals };
}

/** A positive integer flag (snapshot ids and such), or undefined. */
export function intFlag(flags: FlagValues, name: string, command: string): number | undefined {
  const v = flags[name];
  if (v === undefined) return undefined;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 1) {
    throw usageError(`--${name} expects a positive whole number`, command);
  }
  return v;
}

export function stringFlag(flags: FlagValues, name: string): string | undefined {
  const v = flags[name];
  return typeof v === 'string' ? v : undefined;
}

export function listFlag(flags: FlagValues, name: string): string[] {
  const v = flags[name];
  return Array.isArray(v) ? v : [];
}
