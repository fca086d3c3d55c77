// Keeps the API key out of every error that leaves the client. undici errors can carry the
// request (headers included), so foreign errors are never chained as `cause`: only their
// name, code and a scrubbed message survive.

import { WbsyncError } from '../domain/errors.js';

const REDACTED = '[redacted]';
/** Shorter "keys" are test stand-ins; scrubbing them would mangle ordinary words in messages. */
const MIN_SECRET_LENGTH = 8;

/** Replaces every occurrence of `secret` in `text` (no-op for an empty secret). */
export function scrubText(text: string, secret: string): string {
  if (secret.length < MIN_SECRET_LENGTH || !text.includes(secret)) return text;
  return text.split(secret).join(REDACTED);
}

/** A plain, header-free summary of a foreign error, safe to attach as `cause`. */
export class SafeCause extends Error {
  readonly code: string | undefined;
  constructor(name: string, message: string, code: string | undefined) {
    super(message);
    this.name = name;
    this.code = code;
  }
}

export function summariseCause(err: unknown, secret: string): SafeCause {
  if (err instanceof Error) {
    const code = (err as { code?: unknown }).code;
    return new SafeCause(err.name, scrubText(err.message, secret), typeof code === 'string' ? code : undefined);
  }
  return new SafeCause('Error', scrubText(String(err), secret), undefined);
}

function scrubValue(value: unknown, secret: string, depth: number): unknown {
  if (typeof value === 'string') return scrubText(value, secret);
  if (depth > 4 || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((v) => scrubValue(v, secret, depth + 1));
  // Null prototype: a hostile key such as `__proto__` stays an ordinary key of the copy.
  const out: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
  for (const [k, v] of Object.entries(value)) out[k] = scrubValue(v, secret, depth + 1);
  return out;
}

/**
 * Last line of defence at the client's edge: a WbsyncError whose message, hint, details or cause
 * chain might contain the key is rebuilt without it; anything else becomes an internal error.
 */
export function scrubError(err: unknown, secret: string): WbsyncError {
  if (!(err instanceof WbsyncError)) {
    return new WbsyncError('internal', scrubText(err instanceof Error ? err.message : String(err), secret), {
      cause: summariseCause(err, secret),
    });
  }
  if (isClean(err, secret)) return err;
  const cause = err.cause === undefined ? undefined : err.cause instanceof SafeCause ? scrubSafe(err.cause, secret) : summariseCause(err.cause, secret);
  return new WbsyncError(err.code, scrubText(err.message, secret), {
    hint: err.hint === undefined ? undefined : scrubText(err.hint, secret),
    retryable: err.retryable,
    status: err.status,
    endpoint: err.endpoint,
    cause,
    details: err.details === undefined ? undefined : (scrubValue(err.details, secret, 0) as Record<string, unknown>),
  });
}

function scrubSafe(c: SafeCause, secret: string): SafeCause {
  return new SafeCause(c.name, scrubText(c.message, secret), c.code);
}

function isClean(err: WbsyncError, secret: string): boolean {
  if (secret.length < MIN_SECRET_LENGTH) return err.cause === undefined || err.cause instanceof SafeCause;
  const causeOk = err.cause === undefined || (err.cause instanceof SafeCause && !err.cause.message.includes(secret));
  let detailsText = '';
  try {
    detailsText = JSON.stringify(err.details ?? null);
  } catch {
    return false;
  }
  return causeOk && !err.message.includes(secret) && !(err.hint ?? '').includes(secret) && !detailsText.includes(secret);
}
