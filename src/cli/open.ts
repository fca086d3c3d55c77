// Opening what commands need: the service client (from config) and the snapshot store.

import { createHttpClient } from '../api/http-client.js';
import type { ServiceClient } from '../api/port.js';
import { requireService } from '../config/load.js';
import { openStore } from '../store/index.js';
import type { Store } from '../store/port.js';
import type { CommandContext } from './command.js';

export function openClient(ctx: CommandContext, onRetry?: () => void): ServiceClient {
  const loaded = ctx.config();
  const { baseUrl, apiKey } = requireService(loaded);
  const http = loaded.config.http;
  return createHttpClient({
    baseUrl,
    apiKey,
    concurrency: http.concurrency,
    timeoutMs: http.timeoutMs,
    retries: http.retries,
    logger: ctx.logger(),
    onRetry,
  });
}

export function openDb(ctx: CommandContext, opts: { readonly?: boolean } = {}): Store {
  return openStore(ctx.config().config.db, opts);
}

