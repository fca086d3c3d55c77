// Loads the configuration: config/default.json < config file (--config or WBSYNC_CONFIG) <
// environment (every key, named after it: env.ts) < command-line flags; validated once, every
// problem reported as `path: message`.
// The API key is read only from WBSYNC_API_KEY or the key file, never from flags or config files.

import { readFileSync } from 'node:fs';
import { userInfo } from 'node:os';
import { shown } from '../domain/display-text.js';
import { WbsyncError } from '../domain/errors.js';
import { commandLine } from '../domain/shell-command.js';
import { envLayer } from './env.js';
import { ConfigSchema, type Config } from './schema.js';
import { secretFileWarning } from './secret-file.js';

export interface ConfigFlags {
  config?: string;
  db?: string;
  logLevel?: string;
}

export interface LoadedConfig {
  config: Config;
  /** The key, when one is configured; never log or print it. */
  apiKey: string | null;
  /** Where the key came from (for messages): 'WBSYNC_API_KEY', 'apiKeyFile <path>' or null. */
  apiKeySource: string | null;
  /** Things to log once a logger exists (a key file others may read). */
  warnings?: string[];
}

type Json = Record<string, unknown>;

const FORBIDDEN_KEY_FIELDS = ['apiKey', 'api_key', 'key', 'token', 'pit'];

const DEFAULTS_URL = new URL('../../config/default.json', import.meta.url);

function readJsonFile(path: string | URL, what: string): Json {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code ?? 'error';
    throw new WbsyncError('config', `cannot read ${what} ${String(path)} (${code})`, {
      hint: 'check the path given with --config or WBSYNC_CONFIG',
    });
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (e) {
    const at = jsonErrorAt(text, (e as Error).message);
    throw new WbsyncError('config', `${what} ${String(path)} is not valid JSON at line ${at.line}, column ${at.column}: ${shown(at.reason)}\n  ${at.excerpt}`, {
      hint: 'fix the file there; it must hold one JSON object (no comments, no trailing commas, keys in double quotes)',
      details: { line: at.line, column: at.column },
    });
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new WbsyncError('config', `${what} ${String(path)} must hold a JSON object`);
  }
  return parsed as Json;
}

/** Where JSON.parse stopped, as line and column (1-based), with the line itself and a caret. */
export function jsonErrorAt(text: string, message: string): { line: number; column: number; reason: string; excerpt: string } {
  const m = /at position (\d+)/.exec(message);
  const pos = m ? Math.min(Number(m[1]), text.length) : text.length;
  const before = text.slice(0, pos);
  const line = before.split('\n').length;
  const lineStart = before.lastIndexOf('\n') + 1;
  const column = pos - lineStart + 1;
  const lineText = (text.slice(lineStart).split('\n')[0] ?? '').replace(/\r$/, '').replace(/\t/g, ' ');
  const excerpt = lineText.length > 120 ? lineText.slice(Math.max(0, column - 60), column + 60) : lineText;
  const caretAt = lineText.length > 120 ? Math.min(column - 1, 60) : column - 1;
  const reason = message.replace(/\s*(?:in JSON )?at position \d+.*$/s, '').replace(/\s*\(line \d+ column \d+\)$/, '') || 'invalid JSON';
  return { line, column, reason, excerpt: `${excerpt}\n  ${' '.repeat(Math.max(0, caretAt))}^` };
}

function isPlainObject(v: unknown): v is Json {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** Deep merge of plain objects; arrays and scalars from `over` replace. Ignores prototype keys. */
export function mergeConfig(base: Json, over: Json): Json {
  const out: Json = { ...base };
  for (const [k, v] of Object.entries(over)) {
    if (k === '__proto__' || k === 'constructor' || k === 'prototype') continue;
    if (v === undefined) continue;
    const prev = out[k];
    out[k] = isPlainObject(prev) && isPlainObject(v) ? mergeConfig(prev, v) : v;
  }
  return out;
}

function flagLayer(flags: ConfigFlags): Json {
  const layer: Json = {};
  if (flags.db !== undefined) layer.db = flags.db;
  if (flags.logLevel !== undefined) layer.log = { level: flags.logLevel };
  return layer;
}

/** The form a key whose items are objects takes, shown when an item is something else. */
const ITEM_FORMS: Record<string, string> = {
  'alerts.webhooks': '{"url": "https://hooks.example.com/…", "format": "json"}',
};

type Issue = { path: ReadonlyArray<PropertyKey>; message: string; code?: string; expected?: string };

/**
 * Formats zod issues as `path: message` lines; a key set from the environment names its variable,
 * and an array item given in the wrong form shows the right one.
 */
export function formatIssues(issues: ReadonlyArray<Issue>, fromEnv: ReadonlyMap<string, string> = new Map()): string[] {
  return issues.map((i) => {
    const path = i.path.map(String);
    const key = path.length ? path.join('.') : '(root)';
    let message = i.message;
    const arrayKey = path.slice(0, -1).join('.');
    if (i.code === 'invalid_type' && i.expected === 'object' && ITEM_FORMS[arrayKey] && /^\d+$/.test(path[path.length - 1] ?? '')) {
      message += `; each item is an object: ${ITEM_FORMS[arrayKey]}`;
    }
    const envKey = [...fromEnv.keys()].find((k) => key === k || key.startsWith(`${k}.`));
    // a key or a value quoted from the file or the environment stays on its line
    return `${shown(key)}: ${shown(message)}${envKey ? ` (from ${fromEnv.get(envKey)})` : ''}`;
  });
}

function readKeyFile(path: string): string {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code ?? 'error';
    if (code === 'EACCES' || code === 'EPERM') {
      const me = currentUser();
      throw new WbsyncError('config', `cannot read the key file ${path} (${code}): wbsync runs as ${me.name} (uid ${me.uid}), and that user must be able to read it`, {
        hint: `give it to that user, e.g. ${commandLine(['chown', String(me.uid), path])} with mode 0400 (in a container, mount the secret with that owner or mode); or point apiKeyFile / WBSYNC_API_KEY_FILE at a file it can read`,
      });
    }
    throw new WbsyncError('config', `cannot read the key file ${path} (${code})`, {
      hint: 'set apiKeyFile / WBSYNC_API_KEY_FILE to a readable file holding only the key',
    });
  }
  const key = text.trim();
  if (!key) throw new WbsyncError('config', `the key file ${path} is empty`, { hint: 'write the key into it' });
  if (/\s/.test(key)) {
    throw new WbsyncError('config', `the key file ${path} holds more than one word`, {
      hint: 'the file must hold only the key',
    });
  }
  return key;
}

function currentUser(): { name: string; uid: number } {
  try {
    const u = userInfo();
    return { name: u.username, uid: u.uid };
  } catch {
    const uid = process.getuid?.() ?? -1;
    return { name: `uid ${uid}`, uid };
  }
}

export function loadConfig(flags: ConfigFlags, env: NodeJS.ProcessEnv = process.env): LoadedConfig {
  let merged = readJsonFile(DEFAULTS_URL, 'default configuration');
  const file = flags.config ?? env.WBSYNC_CONFIG;
  if (file) {
    const fromFile = readJsonFile(file, 'config file');
    const leaked = Object.keys(fromFile).filter((k) => FORBIDDEN_KEY_FIELDS.includes(k));
    if (leaked.length) {
      throw new WbsyncError('config', `config file ${file}: ${leaked.join(', ')}: the key is never accepted in a config file`, {
        hint: 'remove it from the file; pass the key with WBSYNC_API_KEY or a key file (apiKeyFile / WBSYNC_API_KEY_FILE)',
      });
    }
    merged = mergeConfig(merged, fromFile);
  }
  const fromEnvironment = envLayer(env);
  merged = mergeConfig(merged, fromEnvironment.layer);
  merged = mergeConfig(merged, flagLayer(flags));
  const fromEnv = new Map(fromEnvironment.fromEnv);
  if (flags.db !== undefined) fromEnv.delete('db');
  if (flags.logLevel !== undefined) fromEnv.delete('log.level');

  const parsed = ConfigSchema.safeParse(merged);
  if (!parsed.success) {
    const lines = formatIssues(parsed.error.issues as ReadonlyArray<Issue>, fromEnv);
    throw new WbsyncError('config', `invalid configuration:\n  ${lines.join('\n  ')}`, {
      hint: 'fix the settings named above (config file, environment or flags)',
      details: { problems: lines },
    });
  }
  const config = parsed.data;

  let apiKey: string | null = null;
  let apiKeySource: string | null = null;
  const envKey = env.WBSYNC_API_KEY?.trim();
  if (envKey) {
    apiKey = envKey;
    apiKeySource = 'WBSYNC_API_KEY';
  } else if (config.apiKeyFile) {
    apiKey = readKeyFile(config.apiKeyFile);
    apiKeySource = `apiKeyFile ${config.apiKeyFile}`;
  }
  const loose = config.apiKeyFile && apiKeySource !== 'WBSYNC_API_KEY' ? secretFileWarning(config.apiKeyFile, 'apiKeyFile') : undefined;
  return { config, apiKey, apiKeySource, ...(loose ? { warnings: [loose] } : {}) };
}

/** For commands that talk to the service: the base URL and key, or a clear refusal. */
export function requireService(loaded: LoadedConfig): { baseUrl: string; apiKey: string } {
  const { baseUrl } = loaded.config;
  if (!baseUrl) {
    throw new WbsyncError('config', 'baseUrl: no service URL is configured', {
      hint: 'set WBSYNC_BASE_URL (or baseUrl in the config file), e.g. https://boards.example.com',
    });
  }
  if (!loaded.apiKey) {
    throw new WbsyncError('auth', 'no API key is configured', {
      hint: 'set WBSYNC_API_KEY, or WBSYNC_API_KEY_FILE / apiKeyFile to a file holding the key',
    });
  }
  return { baseUrl: baseUrl.replace(/\/+$/, ''), apiKey: loaded.apiKey };
}
