// Renders the configuration table of docs/configuration.md from the zod schema, so the two cannot
// drift: a test fails when the page's table differs from this output. Every key's environment
// variable is listed (env.ts derives it from the key).

import { CONFIG_LEAVES, type EnvKind } from './env.js';

const WRITTEN: Record<EnvKind, string> = {
  string: '',
  number: '',
  boolean: ' (true/false)',
  list: ' (a,b or JSON)',
  json: ' (JSON)',
};

export function renderConfigTable(): string {
  const lines = ['| key | env | default | meaning |', '|---|---|---|---|'];
  lines.push('| (the key) | WBSYNC_API_KEY | — | The Personal Integration Token; never accepted in a flag or a config file. |');
  for (const leaf of CONFIG_LEAVES) {
    const def = leaf.def;
    const d = def === undefined ? '—' : Array.isArray(def) && def.length === 0 ? '`[]`' : `\`${typeof def === 'string' ? def : JSON.stringify(def)}\``;
    const description = leaf.type.description ?? leaf.inner.description ?? '';
    const env = leaf.secret ? '— (a secret: config file only)' : `${leaf.env}${WRITTEN[leaf.kind]}`;
    lines.push(`| ${leaf.key} | ${env} | ${d} | ${description.replace(/\|/g, '\\|')} |`);
  }
  return lines.join('\n');
}
