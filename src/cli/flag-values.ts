// Typed reads of parsed flag values, for commands' run functions.

import { WbsyncError } from '../domain/errors.js';
import type { FlagValues } from './command.js';

/** A positive integer flag (snapshot ids and such), or undefined. */
export function intFlag(flags: FlagValues, name: string, command: string): number | undefined {
  const v = flags[name];
  if (v === undefined) return undefined;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 1) {
    throw new WbsyncError('usage', `--${name} expects a positive whole number`, { hint: `see 'wbsync ${command} --help'` });
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
