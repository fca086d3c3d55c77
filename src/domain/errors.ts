// One error type for the whole program: a code, a hint for the user, whether retrying may help.
// The CLI's single top-level catch maps codes to exit codes through EXIT_CODES.

export type ErrorCode =
  | 'usage' // bad flags or command (exit 2)
  | 'config' // invalid configuration (exit 2)
  | 'auth' // key missing, invalid or rotated (exit 3)
  | 'unreachable' // service down or failing after retries (exit 4)
  | 'partial' // finished, some parts failed (exit 5)
  | 'restore_refused' // restore precondition failed (exit 6)
  | 'http' // a single request failed (status in `status`)
  | 'bad_response' // body not JSON, over the size cap, or failing its schema
  | 'not_found' // 404 / observed 400 "Invalid board id"
  | 'forbidden' // 403
  | 'locked' // another daemon holds the database (exit 2)
  | 'storage' // SQLite failure (disk full, corruption...)
  | 'internal'; // a bug (exit 70)

export const EXIT_CODES = {
  ok: 0,
  different: 1,
  usage: 2,
  auth: 3,
  unreachable: 4,
  partial: 5,
  restoreRefused: 6,
  internal: 70,
} as const;

export interface WbsyncErrorOptions {
  hint?: string;
  retryable?: boolean;
  status?: number;
  endpoint?: string;
  cause?: unknown;
  details?: Record<string, unknown>;
}

export class WbsyncError extends Error {
  readonly code: ErrorCode;
  readonly hint: string | undefined;
  readonly retryable: boolean;
  readonly status: number | undefined;
  readonly endpoint: string | undefined;
  readonly details: Record<string, unknown> | undefined;

  constructor(code: ErrorCode, message: string, opts: WbsyncErrorOptions = {}) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = 'WbsyncError';
    this.code = code;
    this.hint = opts.hint;
    this.retryable = opts.retryable ?? false;
    this.status = opts.status;
    this.endpoint = opts.endpoint;
    this.details = opts.details;
  }
}

export function isWbsyncError(e: unknown): e is WbsyncError {
  return e instanceof WbsyncError;
}

/** The exit code a failure ends the process with. */
export function exitCodeFor(e: unknown): number {
  if (!isWbsyncError(e)) return EXIT_CODES.internal;
  switch (e.code) {
    case 'usage':
    case 'config':
    case 'locked':
      return EXIT_CODES.usage;
    case 'auth':
      return EXIT_CODES.auth;
    case 'unreachable':
    case 'http':
    case 'bad_response':
      return EXIT_CODES.unreachable;
    case 'partial':
    case 'not_found':
    case 'forbidden':
      return EXIT_CODES.partial;
    case 'restore_refused':
      return EXIT_CODES.restoreRefused;
    case 'storage':
      // disk full, a read-only or half-created database: the environment, not a bug in wbsync
      return EXIT_CODES.usage;
    case 'internal':
      return EXIT_CODES.internal;
  }
}
