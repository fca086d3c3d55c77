// Alerts that reach a person: each event is POSTed to every webhook that wants it (the alert
// document, or Slack's {text}); a healthchecks-style URL gets start / success / fail pings. Sent in
// the background with a timeout and retries — a pass never waits for a receiver, and a dead one
// costs nothing but a log line. URLs are secrets: logs name a webhook by its number only.

import { request } from 'undici';
import type { AlertEventName } from '../config/schema.js';
import { showBidiControls, shown } from '../domain/display-text.js';
import type { Announcement } from './episodes.js';

export interface AlertDocument {
  event: AlertEventName;
  at: string;
  database: string;
  workspaceId?: string;
  moduleId?: string;
  summary: string;
  details: Record<string, unknown>;
  undo?: string;
  /** The same undo as its argument vector (run it without a shell). */
  undoArgv?: string[];
}

export interface WebhookTarget {
  url: string;
  format: 'json' | 'slack';
  events?: readonly AlertEventName[];
}

export interface NotifierOptions {
  webhooks: readonly WebhookTarget[];
  healthchecksUrl?: string;
  database: string;
  timeoutMs: number;
  logger: { warn(fields: Record<string, unknown>, msg: string): void; info(fields: Record<string, unknown>, msg: string): void };
  now?: () => Date;
  /** Attempts per delivery (default 3) and the pause before the first retry (doubling). */
  attempts?: number;
  retryDelayMs?: number;
}

/** Slack's three control characters in message text, as its documentation asks them escaped (`<!channel>` would ping everyone). */
const SLACK_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;' };

/**
 * Slack-compatible text: one line that says it all, then the details that matter. Each outside
 * string (the summary, each detail, the database path) is shown() on its one line, so a name
 * holding a newline cannot fake a line of the alert; `&`, `<` and `>` are escaped as Slack asks.
 * The undo is a command line (commandLine: its controls already spelled out) and is left whole.
 */
export function slackText(a: AlertDocument): string {
  const lines = [`*wbsync ${a.event.replace('_', ' ')}* — ${shown(a.summary)}`];
  const what = a.details['what'];
  if (Array.isArray(what)) lines.push(...what.map((w) => `• ${shown(String(w))}`));
  if (a.undo) lines.push(`Undo: \`${a.undo}\``);
  lines.push(`(${shown(a.database)}, ${a.at})`);
  return showBidiControls(lines.join('\n')).replace(/[&<>]/g, (c) => SLACK_ESCAPES[c]!);
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** The error's code (ECONNREFUSED, UND_ERR_...) or status, never its text: it may quote the URL. */
const errorCode = (e: unknown): string => {
  const err = e as { code?: unknown; statusCode?: unknown; name?: unknown };
  return String(err.code ?? err.statusCode ?? err.name ?? 'error');
};

export class Notifier {
  private readonly pending = new Set<Promise<void>>();
  private readonly now: () => Date;

  constructor(private readonly opts: NotifierOptions) {
    this.now = opts.now ?? (() => new Date());
  }

  get configured(): boolean {
    return this.opts.webhooks.length > 0 || this.opts.healthchecksUrl !== undefined;
  }

  /** Sends an alert to every webhook that wants it; returns at once. */
  notify(a: Announcement & { workspaceId?: string; moduleId?: string; undo?: string; undoArgv?: string[] }): AlertDocument {
    const doc: AlertDocument = {
      event: a.event,
      at: this.now().toISOString(),
      database: this.opts.database,
      ...(a.workspaceId ? { workspaceId: a.workspaceId } : {}),
      ...(a.moduleId ? { moduleId: a.moduleId } : {}),
      summary: a.summary,
      details: a.details,
      ...(a.undo ? { undo: a.undo } : {}),
      ...(a.undoArgv ? { undoArgv: a.undoArgv } : {}),
    };
    this.opts.webhooks.forEach((w, i) => {
      if (w.events && !w.events.includes(a.event)) return;
      const body = w.format === 'slack' ? JSON.stringify({ text: slackText(doc) }) : JSON.stringify(doc);
      this.track(this.deliver(w.url, body, `webhook ${i + 1}`, a.event));
    });
    return doc;
  }

  /** A healthchecks-style ping: /start when a pass begins, the URL itself on success, /fail on failure. */
  ping(kind: 'start' | 'success' | 'fail', reason?: string): void {
    const base = this.opts.healthchecksUrl;
    if (!base) return;
    const url = kind === 'success' ? base : `${base.replace(/\/+$/, '')}/${kind}`;
    // a text body a person reads in the checks' log: the failure's text (the service's words) on one line
    this.track(this.deliver(url, reason === undefined ? '' : shown(reason), 'healthchecks', kind));
  }

  /** Waits for deliveries in flight, at most `ms` (shutdown, tests). */
  async drain(ms: number): Promise<boolean> {
    const all = Promise.all([...this.pending]).then(() => true);
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<boolean>((r) => (timer = setTimeout(() => r(false), ms)));
    try {
      return await Promise.race([all, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  private track(p: Promise<void>): void {
    this.pending.add(p);
    void p.finally(() => this.pending.delete(p));
  }

  private async deliver(url: string, body: string, target: string, what: string): Promise<void> {
    const attempts = this.opts.attempts ?? 3;
    let delay = this.opts.retryDelayMs ?? 1_000;
    let last = '';
    for (let attempt = 1; attempt <= attempts; attempt++) {
      try {
        const res = await request(url, {
          method: 'POST',
          headers: { 'content-type': body.startsWith('{') ? 'application/json' : 'text/plain; charset=utf-8', 'user-agent': 'wbsync-alerts' },
          body,
          headersTimeout: this.opts.timeoutMs,
          bodyTimeout: this.opts.timeoutMs,
          signal: AbortSignal.timeout(this.opts.timeoutMs),
        });
        await res.body.dump();
        if (res.statusCode < 300) return;
        last = `HTTP ${res.statusCode}`;
        // a client error will not improve with retries (except rate limiting)
        if (res.statusCode < 500 && res.statusCode !== 429 && res.statusCode !== 408) break;
      } catch (e) {
        last = errorCode(e);
      }
      if (attempt < attempts) {
        await sleep(delay);
        delay *= 2;
      }
    }
    this.opts.logger.warn({ target, event: what, reason: last }, 'alert not delivered');
  }
}
