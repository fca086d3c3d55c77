// Loads the configuration: config/default.json < config file (--config or WBSYNC_CONFIG) <
// environment < command-line flags; validated once, every problem reported as `path: message`.
// The API key is read only from WBSYNC_API_KEY or the key file, never from flags or config files.

import { readFileSync } from 'node:fs';
import { WbsyncError } from '../domain/errors.js';
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
    throw new WbsyncError('config', `${what} ${String(path)} is not valid JSON: ${(e as Error).message}`, {
      hint: 'fix the file; it must hold one JSON object',
    });
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new WbsyncError('config', `${what} ${String(path)} must hold a JSON object`);
  }
  return parsed as Json;
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

function envLayer(env: NodeJS.ProcessEnv): Json {
  const layer: Json = {};
  if (env.WBSYNC_BASE_URL) layer.baseUrl = env.WBSYNC_BASE_URL;
  if (env.WBSYNC_API_KEY_FILE) layer.apiKeyFile = env.WBSYNC_API_KEY_FILE;
  if (env.WBSYNC_DB) layer.db = env.WBSYNC_DB;
  if (env.WBSYNC_LOG_LEVEL) layer.log = { level: env.WBSYNC_LOG_LEVEL };
  return layer;
}

function flagLayer(flags: ConfigFlags): Json {
  const layer: Json = {};
  if (flags.db !== undefined) layer.db = flags.db;
  if (flags.logLevel !== undefined) layer.log = { level: flags.logLevel };
  return layer;
}

/** Formats zod issues as `path: message` lines. */
export function formatIssues(issues: ReadonlyArray<{ path: ReadonlyArray<PropertyKey>; message: string }>): string[] {
  return issues.map((i) => `${i.path.length ? i.path.map(String).join('.') : '(root)'}: ${i.message}`);
}

function readKeyFile(path: string): string {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code ?? 'error';
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
  merged = mergeConfig(merged, envLayer(env));
  merged = mergeConfig(merged, flagLayer(flags));

  const parsed = ConfigSchema.safeParse(merged);
  if (!parsed.success) {
    const lines = formatIssues(parsed.error.issues);
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
