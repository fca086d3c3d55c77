// What a route handler returns or throws. The server turns these into bytes; handlers never touch
// the socket, which keeps them synchronous, testable and unable to half-write a response.

export type Reply =
  | { status: number; json: unknown; headers?: Record<string, string> }
  | { status: number; html: string; headers?: Record<string, string> };

export class HttpError extends Error {
  constructor(readonly reply: Reply) {
    super(
      'json' in reply && reply.json && typeof reply.json === 'object' && 'message' in reply.json
        ? String((reply.json as { message: unknown }).message)
        : `HTTP ${reply.status}`,
    );
  }
}

export function json(status: number, body: unknown): Reply {
  return { status, json: body };
}

export function fail(status: number, message: string, extra?: Record<string, unknown>): HttpError {
  return new HttpError({ status, json: { message, ...extra } });
}

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** The page Express's finalhandler writes when nothing handled the request or a parser threw. */
export function expressErrorPage(status: number, text: string): Reply {
  const html =
    '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n<title>Error</title>\n' +
    `</head>\n<body>\n<pre>${escapeHtml(text)}</pre>\n</body>\n</html>\n`;
  return { status, html };
}
