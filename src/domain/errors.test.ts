import { describe, expect, it } from 'vitest';
import { WbsyncError, exitCodeFor, type ErrorCode } from './errors.js';

describe('exit codes', () => {
  it.each<[ErrorCode, number]>([
    ['usage', 2], ['config', 2], ['locked', 2], ['storage', 2], ['auth', 3], ['unreachable', 4], ['http', 4], ['bad_response', 4],
    ['partial', 5], ['not_found', 5], ['forbidden', 5], ['restore_refused', 6], ['internal', 70],
  ])('%s exits %i', (code, exit) => {
    expect(exitCodeFor(new WbsyncError(code, 'x'))).toBe(exit);
  });

  it('anything that is not a WbsyncError is a bug: 70', () => {
    expect(exitCodeFor(new TypeError('boom'))).toBe(70);
    expect(exitCodeFor('string')).toBe(70);
  });
});
