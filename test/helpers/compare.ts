// Compares expected rows with view rows by key, field by field, and reports every difference.

type Row = Record<string, any>;

function norm(v: unknown): unknown {
  if (typeof v === 'string' && (v.startsWith('{') || v.startsWith('['))) {
    try {
      return JSON.parse(v);
    } catch {
      return v;
    }
  }
  return v;
}

function same(a: unknown, b: unknown): boolean {
  return JSON.stringify(norm(a)) === JSON.stringify(norm(b));
}

/** Differences as readable lines: missing rows, extra rows, and field mismatches. */
export function diffRows(entity: string, expected: Row[], actual: Row[], key: (r: Row) => string = (r) => r.id): string[] {
  const out: string[] = [];
  const got = new Map(actual.map((r) => [key(r), r]));
  const want = new Map(expected.map((r) => [key(r), r]));
  for (const [k, e] of want) {
    const a = got.get(k);
    if (!a) {
      out.push(`${entity} ${k}: missing from the view`);
      continue;
    }
    for (const [field, value] of Object.entries(e)) {
      if (!same(value, a[field])) out.push(`${entity} ${k}.${field}: expected ${JSON.stringify(value)}, view has ${JSON.stringify(a[field])}`);
    }
  }
  for (const k of got.keys()) if (!want.has(k)) out.push(`${entity} ${k}: in the view but not expected`);
  return out;
}
