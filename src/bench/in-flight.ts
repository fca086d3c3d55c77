// How full the request pipe of a measured pass stays: the requests on the wire (undici's
// diagnostics channels: created, not yet finished) and the calls the pass has asked of the client
// and not yet had answered (queued behind the concurrency bound, or in backoff, or on the wire),
// sampled every 50 ms. A pass whose wire count sits below the concurrency while nothing waits is
// starved by its own structure (too few requests ready), not by the network or the service.

import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import type { ServiceClient } from '../api/port.js';

export interface InFlightFigures {
  /** Mean requests on the wire over the sampled time. */
  meanOnWire: number;
  /** Mean calls asked and not yet answered (on the wire + waiting for a slot). */
  meanAsked: number;
  /** Share of samples with the wire at the concurrency bound. */
  atBound: number;
  /** Share of samples with fewer than half the bound on the wire. */
  underHalf: number;
  /** Mean on the wire per tenth of the pass's time (where the pipe runs dry). */
  byTenth: number[];
  samples: number;
}

export interface InFlightMeter {
  /** The client wrapped so that its calls are counted. */
  client: ServiceClient;
  stop(): InFlightFigures;
}

const round = (x: number, d = 1): number => Math.round(x * 10 ** d) / 10 ** d;

export function meterInFlight(client: ServiceClient, concurrency: number, everyMs = 50): InFlightMeter {
  let onWire = 0;
  let asked = 0;
  const created = (): void => void onWire++;
  const finished = (): void => void onWire--;
  subscribe('undici:request:create', created);
  subscribe('undici:request:trailers', finished);
  subscribe('undici:request:error', finished);
  const wire: number[] = [];
  const waiting: number[] = [];
  const timer = setInterval(() => {
    wire.push(onWire);
    waiting.push(asked);
  }, everyMs);
  const counted = new Proxy(client, {
    get(target, prop, receiver) {
      const v = Reflect.get(target, prop, receiver) as unknown;
      if (typeof v !== 'function' || prop === 'stats' || prop === 'close') return v;
      return (...args: unknown[]) => {
        const out = (v as (...a: unknown[]) => unknown).apply(target, args);
        if (!(out instanceof Promise)) return out;
        asked++;
        return out.finally(() => void asked--);
      };
    },
  });
  return {
    client: counted,
    stop: () => {
      clearInterval(timer);
      unsubscribe('undici:request:create', created);
      unsubscribe('undici:request:trailers', finished);
      unsubscribe('undici:request:error', finished);
      const n = Math.max(1, wire.length);
      const mean = (xs: number[]): number => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
      const tenths = Array.from({ length: 10 }, (_, i) => round(mean(wire.slice(Math.floor((i * wire.length) / 10), Math.floor(((i + 1) * wire.length) / 10)))));
      return {
        meanOnWire: round(mean(wire)),
        meanAsked: round(mean(waiting)),
        atBound: round(wire.filter((w) => w >= concurrency).length / n, 2),
        underHalf: round(wire.filter((w) => w < concurrency / 2).length / n, 2),
        byTenth: tenths,
        samples: wire.length,
      };
    },
  };
}
