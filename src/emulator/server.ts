// The HTTP front: routing, request logging, faults, the database-down switch, body limits,
// authentication, ETags, and writing (or deliberately mangling) the response. It must never throw
// out of a request: every path ends in a reply or a destroyed socket.

import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { authenticate } from './access.js';
import { drainEvents } from './automation-engine.js';
import { HttpError, type Reply } from './http-reply.js';
import { interfaceReply } from './interface.js';
import type { RequestLogImpl } from './request-log.js';
import type { Router } from './router.js';
import type { Faults } from './faults.js';
import type { World } from './world.js';

export interface ServerDeps {
  world(): World;
  router: Router;
  faults: Faults;
  log: RequestLogImpl;
  maxBodyBytes: number;
  dbDownStallMs: number;
  /** Observed: the pause between a logged write's module touch and its feed row. */
  feedRowDelayMs: number;
  startedAt: number;
  /** Sleeps that stop() can cut short. */
  sleep(ms: number): Promise<void>;
  /** Observed: run automations after the response. */
  scheduleAutomations(w: World): void;
}

type BodyResult = { ok: true; text: string } | { ok: false; reply: Reply };

export class RequestHandler {
  constructor(private readonly deps: ServerDeps) {}

  handle(req: IncomingMessage, res: ServerResponse): void {
    this.process(req, res).catch(() => {
      // Last resort: a bug must cost one request, not the server.
      if (!res.headersSent && !res.destroyed) {
        try {
          res.writeHead(500, { 'content-type': 'application/json; charset=utf-8' });
          res.end(JSON.stringify({ message: 'Internal emulator error' }));
        } catch {
          res.destroy();
        }
      } else res.destroy();
    });
  }

  private async process(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const d = this.deps;
    const method = (req.method ?? 'GET').toUpperCase();
    const rawUrl = req.url ?? '/';
    const q = rawUrl.indexOf('?');
    const path = q >= 0 ? rawUrl.slice(0, q) : rawUrl;
    const query = q >= 0 ? rawUrl.slice(q + 1) : '';
    const w0 = d.world();
    const isHealth = path === '/' && method === 'GET';
    const isInterface = (path === '/api' || path === '/api/') && method === 'GET';
    const isApi = path === '/api' || path.startsWith('/api/');
    const match = isApi && !isInterface ? d.router.match(method, path.slice(4) || '/', w0.rules.dialect) : null;
    const route = isHealth ? 'GET /' : isInterface ? 'GET /api' : match ? match.route.name : 'UNMATCHED';
    const at = w0.state.clock.now().toISOString();
    res.on('close', () => {
      d.log.add({ method, path, query, route, status: res.headersSent ? res.statusCode : 0, at });
    });

    const fault = d.faults.decide(method, path, route, isApi);
    if (d.faults.latencyMs > 0) await d.sleep(d.faults.latencyMs);
    if (fault.kind === 'drop') {
      req.socket.destroy();
      return;
    }
    if (fault.kind === 'status') {
      req.resume();
      return this.send(req, res, { status: fault.status, json: { message: `Injected fault (${fault.status})` } }, false);
    }
    if (fault.kind === 'stall') await d.sleep(fault.ms);
    if (res.destroyed) return;
    const truncate = fault.kind === 'truncate';

    if (isHealth) return this.send(req, res, this.health(), truncate);
    // the emulator's own documentation (no credential): every route, its bodies, the dialects
    if (isInterface) {
      req.resume();
      return this.send(req, res, interfaceReply(d.router.table, w0.rules.dialect, req.headers.accept), truncate);
    }
    const w = d.world();
    if (d.faults.databaseDown && isApi) {
      req.resume();
      if (!w.rules.observed) return this.send(req, res, { status: 503, json: { message: 'Database unavailable' } }, truncate);
      // The deployed server hangs on its first query, then errors; key lookups surface as 401.
      await d.sleep(d.dbDownStallMs);
      if (res.destroyed) return;
      const viaKey = !req.headers.authorization && typeof req.headers['x-api-key'] === 'string';
      const reply: Reply = viaKey
        ? { status: 401, json: { message: 'Invalid token' } }
        : { status: 500, json: { message: 'Operation `users.findOne()` buffering timed out after 10000ms' } };
      return this.send(req, res, reply, truncate);
    }

    const body = await this.readBody(req, w);
    if (!body.ok) return this.send(req, res, body.reply, truncate, true);
    if (!match) return this.send(req, res, w.rules.unknownRoute(method, path), truncate);

    let parsed: unknown = undefined;
    if (body.text.trim() !== '') {
      const type = String(req.headers['content-type'] ?? 'application/json');
      if (type.includes('json')) {
        try {
          parsed = JSON.parse(body.text);
        } catch (err) {
          return this.send(req, res, w.rules.malformedJson(err instanceof Error ? err.message : 'Unexpected token'), truncate);
        }
        if (w.rules.observed && (typeof parsed !== 'object' || parsed === null)) {
          // Express's strict JSON parser only takes objects and arrays.
          return this.send(req, res, w.rules.malformedJson(`Unexpected token in JSON at position 0`), truncate);
        }
      }
    }

    let reply: Reply;
    w.activity.holdRows();
    try {
      const user = authenticate(w.state, req.headers, w.rules);
      const params = match.params;
      reply = match.route.handler({ w, user, params, query: new URLSearchParams(query), body: parsed });
    } catch (err) {
      reply = err instanceof HttpError ? err.reply : { status: 500, json: { message: 'Internal emulator error' } };
    }
    const held = w.activity.takeHeld();
    if (w.events.length > 0) {
      if (w.rules.observed) d.scheduleAutomations(w);
      else drainEvents(w);
    }
    if (held.length > 0) {
      // Observed: the feed row is written after the module touch; other requests run meanwhile,
      // and the answer waits for the row (the deployed server awaits it before answering).
      await d.sleep(d.feedRowDelayMs);
      w.activity.insertHeld(held);
    }
    return this.send(req, res, reply, truncate);
  }

  private health(): Reply {
    const d = this.deps;
    const down = d.faults.databaseDown;
    return {
      status: down ? 503 : 200,
      json: {
        status: down ? 'error' : 'ok',
        service: 'workspace-board-service',
        database: down ? 'disconnected' : 'connected',
        uptimeSeconds: Math.floor((Date.now() - d.startedAt) / 1000),
        time: d.world().state.clock.now().toISOString(),
      },
    };
  }

  private readBody(req: IncomingMessage, w: World): Promise<BodyResult> {
    const max = this.deps.maxBodyBytes;
    const declared = Number(req.headers['content-length']);
    if (Number.isFinite(declared) && declared > max) {
      // Drain before answering, as Express does: replying first makes Node close the socket under
      // a client still sending, which then sees EPIPE instead of the 413.
      return new Promise((resolve) => {
        const reply = (): void => resolve({ ok: false, reply: w.rules.tooLarge() });
        req.once('end', reply);
        req.once('close', reply);
        req.once('error', reply);
        req.resume();
      });
    }
    return new Promise((resolve) => {
      const chunks: Buffer[] = [];
      let size = 0;
      let done = false;
      const finish = (r: BodyResult): void => {
        if (done) return;
        done = true;
        resolve(r);
      };
      let tooLarge = false;
      req.on('data', (chunk: Buffer) => {
        if (done || tooLarge) return;
        size += chunk.length;
        if (size > max) {
          // keep draining (see above) and answer 413 once the body has ended
          tooLarge = true;
          chunks.length = 0;
          return;
        }
        chunks.push(chunk);
      });
      req.on('end', () =>
        finish(tooLarge ? { ok: false, reply: w.rules.tooLarge() } : { ok: true, text: Buffer.concat(chunks).toString('utf8') }),
      );
      req.on('error', () => finish({ ok: true, text: '' }));
      req.on('close', () =>
        finish(tooLarge ? { ok: false, reply: w.rules.tooLarge() } : { ok: true, text: Buffer.concat(chunks).toString('utf8') }),
      );
    });
  }

  private send(req: IncomingMessage, res: ServerResponse, reply: Reply, truncate: boolean, closeAfter = false): void {
    if (res.destroyed || res.headersSent) return;
    const observed = this.deps.world().rules.observed;
    const headers: Record<string, string> = { ...(reply.headers ?? {}) };
    let payload: Buffer;
    if ('html' in reply) {
      headers['content-type'] = 'text/html; charset=utf-8';
      headers['content-security-policy'] = "default-src 'none'";
      payload = Buffer.from(reply.html, 'utf8');
    } else {
      headers['content-type'] = 'application/json; charset=utf-8';
      payload = Buffer.from(JSON.stringify(reply.json) ?? 'null', 'utf8');
    }
    if (observed) headers['x-powered-by'] = 'Express';
    if (closeAfter) headers.connection = 'close';
    let status = reply.status;
    if (observed && req.method === 'GET' && status === 200) {
      const etag = `W/"${payload.length.toString(16)}-${createHash('sha1').update(payload).digest('base64').slice(0, 27)}"`;
      headers.etag = etag;
      const inm = req.headers['if-none-match'];
      // Express's `fresh`: a request saying `Cache-Control: no-cache` always gets the full answer
      // (fetch adds that header itself whenever If-None-Match is set).
      const noCache = /(?:^|,)\s*?no-cache\s*?(?:,|$)/.test(String(req.headers['cache-control'] ?? ''));
      if (!noCache && typeof inm === 'string' && inm.split(',').some((t) => t.trim() === etag)) {
        status = 304;
        payload = Buffer.alloc(0);
      }
    }
    if (truncate && payload.length > 0) {
      // Promise more than we send, then hang up: the client sees a truncated body.
      headers['content-length'] = String(payload.length + 64);
      res.writeHead(status, headers);
      res.write(payload.subarray(0, Math.floor(payload.length / 2)), () => res.destroy());
      return;
    }
    if (status !== 304) headers['content-length'] = String(payload.length);
    res.writeHead(status, headers);
    res.end(status === 304 ? undefined : payload);
  }
}
