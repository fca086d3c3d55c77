// Renders the configuration table of the README from the zod schema, so the two cannot drift:
// a test fails when the README's table differs from this output.

import { z } from 'zod';
import { ConfigSchema } from './schema.js';

const ENV: Record<string, string> = {
  baseUrl: 'WBSYNC_BASE_URL',
  apiKeyFile: 'WBSYNC_API_KEY_FILE',
  db: 'WBSYNC_DB',
  'log.level': 'WBSYNC_LOG_LEVEL',
};

interface Row {
  key: string;
  env: string;
  def: string;
  description: string;
}

function unwrap(t: z.ZodType): { inner: z.ZodType; def: unknown } {
  let cur: z.ZodType = t;
  let def: unknown;
  for (;;) {
    const d = (cur as unknown as { def: { type: string; innerType?: z.ZodType; defaultValue?: unknown } }).def;
    if (d.type === 'default' || d.type === 'prefault') {
      def ??= typeof d.defaultValue === 'function' ? (d.defaultValue as () => unknown)() : d.defaultValue;
      cur = d.innerType!;
    } else if (d.type === 'optional') {
      cur = d.innerType!;
    } else return { inner: cur, def };
  }
}

function rows(shape: Record<string, z.ZodType>, prefix: string): Row[] {
  const out: Row[] = [];
  for (const [name, t] of Object.entries(shape)) {
    const key = prefix ? `${prefix}.${name}` : name;
    const { inner, def } = unwrap(t);
    if (inner instanceof z.ZodObject) {
      out.push(...rows(inner.shape as Record<string, z.ZodType>, key));
      continue;
    }
    const d = def === undefined ? '—' : Array.isArray(def) && def.length === 0 ? '`[]`' : `\`${typeof def === 'string' ? def : JSON.stringify(def)}\``;
    out.push({ key, env: ENV[key] ?? '', def: d, description: t.description ?? inner.description ?? '' });
  }
  return out;
}

export function renderConfigTable(): string {
  const lines = ['| key | env | default | meaning |', '|---|---|---|---|'];
  lines.push('| (the key) | WBSYNC_API_KEY | — | The Personal Integration Token; never accepted in a flag or a config file. |');
  for (const r of rows(ConfigSchema.shape as unknown as Record<string, z.ZodType>, '')) {
    lines.push(`| ${r.key} | ${r.env} | ${r.def} | ${r.description.replace(/\|/g, '\\|')} |`);
  }
  return lines.join('\n');
}
