// Validating what a request names: ids by pattern, snapshot and page numbers as bounded integers.
// Anything else is a 404 (an id or path) or a 400 (a malformed parameter) — never a stack trace.

export class NotFound extends Error {
  constructor(readonly what: string) {
    super(what);
  }
}

export class BadRequest extends Error {}

const ID = /^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$/;

export function idParam(v: string | null | undefined, name: string): string {
  if (v === null || v === undefined || !ID.test(v)) throw new NotFound(`no ${name} ${v ? `'${v.slice(0, 80)}'` : 'given'}`);
  return v;
}

export function optionalId(q: URLSearchParams, name: string): string | undefined {
  const v = q.get(name);
  if (v === null || v === '') return undefined;
  if (!ID.test(v)) throw new BadRequest(`${name} must be an id (letters, digits, - _ . :)`);
  return v;
}

export function intParam(q: URLSearchParams, name: string, min: number, max: number): number | undefined {
  const v = q.get(name);
  if (v === null || v === '') return undefined;
  if (!/^\d{1,15}$/.test(v)) throw new BadRequest(`${name} must be a whole number`);
  const n = Number(v);
  if (n < min || n > max) throw new BadRequest(`${name} must be between ${min} and ${max}`);
  return n;
}

export function textParam(q: URLSearchParams, name: string, maxLength: number): string | undefined {
  const v = q.get(name);
  if (v === null) return undefined;
  if (v.length > maxLength) throw new BadRequest(`${name} is longer than ${maxLength} characters`);
  return v;
}

export function choiceParam<T extends string>(q: URLSearchParams, name: string, choices: readonly T[]): T | undefined {
  const v = q.get(name);
  if (v === null || v === '') return undefined;
  if (!(choices as readonly string[]).includes(v)) throw new BadRequest(`${name} must be one of ${choices.join(', ')}`);
  return v as T;
}
