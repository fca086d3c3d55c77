import { describe, expect, it } from 'vitest';
import { WbsyncError } from '../domain/errors.js';
import { SafeCause, scrubError } from './redact.js';

// built at run time: nothing shaped like a real key is committed
const KEY = `crm_${'feedface'.repeat(8)}`;

describe('scrubError', () => {
  it('replaces a foreign cause (which may carry request headers) by a header-free summary', () => {
    const foreign = Object.assign(new Error(`socket hang up for ${KEY}`), { code: 'ECONNRESET', headers: { 'x-api-key': KEY } });
    const err = scrubError(new WbsyncError('unreachable', `GET /x: failed ${KEY}`, { cause: foreign, hint: KEY, details: { nested: [KEY] } }), KEY);
    expect(err.cause).toBeInstanceOf(SafeCause);
    expect((err.cause as SafeCause).code).toBe('ECONNRESET');
    for (const t of [err.message, err.hint, JSON.stringify(err), JSON.stringify(err.details), String(err.cause), JSON.stringify(err.cause)]) {
      expect(t).not.toContain(KEY);
    }
  });

  it('wraps a non-WbsyncError as internal', () => {
    const err = scrubError(new TypeError(`oops ${KEY}`), KEY);
    expect(err.code).toBe('internal');
    expect(err.message).not.toContain(KEY);
  });

  it('returns a clean error unchanged', () => {
    const clean = new WbsyncError('http', 'GET /x: refused');
    expect(scrubError(clean, KEY)).toBe(clean);
  });
});
