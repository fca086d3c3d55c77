// Every configuration key can be set from the environment, under a name derived from the key:
// WBSYNC_ + the key's path, camelCase split into words, dots into underscores (daemon.listen →
// WBSYNC_DAEMON_LISTEN, http.timeoutMs → WBSYNC_HTTP_TIMEOUT_MS). So a container or a unit needs no
// config file. The names, the kinds of value and the parsing all come from the schema: a new key is
// settable from the environment, and listed in the configuration table, the day it is added.

import { z } from 'zod';
import { WbsyncError } from '../domain/errors.js';
import { ConfigSchema } from './schema.js';

/** How a value is written in the environment. */
export type EnvKind = 'string' | 'number' | 'boolean' | 'list' | 'json';

/**
 * Keys whose values are secrets (a webhook URL carries its token, a ping URL is the check's
 * identity): only from the config file, never the environment, where `docker inspect`, /proc and
 * unit files show them (contract: secrets only from files or the key's own variable).
 */
export const SECRET_KEYS: ReadonlySet<string> = new Set(['alerts.webhooks', 'alerts.healthchecksUrl']);

export interface ConfigLeaf {
  /** Dotted path, e.g. `daemon.listen`. */
  key: string;
  /** The environment variable; for a secret key, the name that is refused. */
  env: string;
  /** A secret: settable in the config file only. */
  secret: boolean;
  kind: EnvKind;
  /** The schema of the leaf as declared (default/optional wrappers included). */
  type: z.ZodType;
  /** The inner schema (wrappers removed). */
  inner: z.ZodType;
  def: unknown;
}

type Def = { type: string; innerType?: z.ZodType; defaultValue?: unknown; element?: z.ZodType };

function defOf(t: z.ZodType): Def {
  return (t as unknown as { def: Def }).def;
}

/** The schema without its default/prefault/optional wrappers, and the default they carry. */
export function unwrapSchema(t: z.ZodType): { inner: z.ZodType; def: unknown } {
  let cur: z.ZodType = t;
  let def: unknown;
  for (;;) {
    const d = defOf(cur);
    if (d.type === 'default' || d.type === 'prefault') {
      def ??= typeof d.defaultValue === 'function' ? (d.defaultValue as () => unknown)() : d.defaultValue;
      cur = d.innerType!;
    } else if (d.type === 'optional') {
      cur = d.innerType!;
    } else return { inner: cur, def };
  }
}

/** WBSYNC_ + the key path in upper snake case. */
export function envName(key: string): string {
  return `WBSYNC_${key
    .split('.')
    .map((part) => part.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toUpperCase())
    .join('_')}`;
}

function kindOf(inner: z.ZodType): EnvKind {
  const d = defOf(inner);
  if (d.type === 'number') return 'number';
  if (d.type === 'boolean') return 'boolean';
  if (d.type === 'array') {
    const el = unwrapSchema(d.element!).inner;
    return defOf(el).type === 'string' ? 'list' : 'json';
  }
  return 'string';
}

function leaves(shape: Record<string, z.ZodType>, prefix: string): ConfigLeaf[] {
  const out: ConfigLeaf[] = [];
  for (const [name, type] of Object.entries(shape)) {
    const key = prefix ? `${prefix}.${name}` : name;
    const { inner, def } = unwrapSchema(type);
    if (inner instanceof z.ZodObject) out.push(...leaves(inner.shape as Record<string, z.ZodType>, key));
    else out.push({ key, env: envName(key), secret: SECRET_KEYS.has(key), kind: kindOf(inner), type, inner, def });
  }
  return out;
}

/** Every configuration key, in schema order, with its environment variable. */
export const CONFIG_LEAVES: readonly ConfigLeaf[] = leaves(ConfigSchema.shape as unknown as Record<string, z.ZodType>, '');

function parseValue(leaf: ConfigLeaf, raw: string): unknown {
  const bad = (expected: string): never => {
    throw new WbsyncError('config', `${leaf.env}: expected ${expected}, got ${JSON.stringify(raw.length > 60 ? `${raw.slice(0, 60)}…` : raw)}`, {
      hint: `set ${leaf.env} to ${expected} (it sets ${leaf.key}), or unset it`,
    });
  };
  switch (leaf.kind) {
    case 'string':
      return raw;
    case 'number': {
      const n = Number(raw.trim());
      return raw.trim() !== '' && Number.isFinite(n) ? n : bad('a number');
    }
    case 'boolean': {
      const v = raw.trim().toLowerCase();
      if (['true', '1', 'yes', 'on'].includes(v)) return true;
      if (['false', '0', 'no', 'off'].includes(v)) return false;
      return bad('true or false');
    }
    case 'list': {
      const t = raw.trim();
      if (t.startsWith('[')) return parseJson(t, 'a JSON array or a comma-separated list');
      return t === '' ? [] : t.split(',').map((s) => s.trim()).filter(Boolean);
    }
    case 'json':
      return parseJson(raw, 'JSON');
  }
  function parseJson(text: string, expected: string): unknown {
    try {
      return JSON.parse(text);
    } catch {
      return bad(expected);
    }
  }
}

function setPath(target: Record<string, unknown>, key: string, value: unknown): void {
  const parts = key.split('.');
  let cur = target;
  for (const p of parts.slice(0, -1)) cur = (cur[p] ??= {}) as Record<string, unknown>;
  cur[parts[parts.length - 1]!] = value;
}

/**
 * The configuration the environment sets, and which keys it set (for messages). An empty variable
 * counts as unset, as it always has for WBSYNC_BASE_URL and the other first four.
 */
export function envLayer(env: NodeJS.ProcessEnv): { layer: Record<string, unknown>; fromEnv: Map<string, string> } {
  const layer: Record<string, unknown> = {};
  const fromEnv = new Map<string, string>();
  for (const leaf of CONFIG_LEAVES) {
    const raw = env[leaf.env];
    if (raw === undefined || raw === '') continue;
    if (leaf.secret) {
      throw new WbsyncError('config', `${leaf.env}: ${leaf.key} is a secret and is not read from the environment`, {
        hint: `unset ${leaf.env} and put ${leaf.key} in the config file (--config or WBSYNC_CONFIG; mode 0600)`,
      });
    }
    setPath(layer, leaf.key, parseValue(leaf, raw));
    fromEnv.set(leaf.key, leaf.env);
  }
  return { layer, fromEnv };
}
