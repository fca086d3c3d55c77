# syntax=docker/dockerfile:1
# wbsync in a container: the daemon by default, the key from a mounted secret file, data in /data.
#   docker build -t wbsync .
#   docker run -d -p 9464:9464 -v wbsync-data:/data -v "$PWD/key:/run/secrets/wbsync_key:ro" \
#     -e WBSYNC_BASE_URL=https://boards.example.com wbsync
# Every configuration key can be set as WBSYNC_<KEY> (docs/configuration.md): no config file needed.
# The key file must be readable by the image's user, node (uid 1000).
#
# Node 24 is the newest LTS line that better-sqlite3 12 supports (its engines stop at 25.x).

# --- build stage: dev dependencies, native build of better-sqlite3, TypeScript compile
FROM node:24-bookworm-slim AS build
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci
COPY tsconfig.json ./
COPY src ./src
COPY config ./config
RUN npm run build \
 && npm prune --omit=dev

# --- runtime stage: production dependencies only, non-root
FROM node:24-bookworm-slim AS runtime
ENV NODE_ENV=production \
    WBSYNC_DB=/data/wbsync.db \
    WBSYNC_API_KEY_FILE=/run/secrets/wbsync_key \
    WBSYNC_DAEMON_LISTEN=0.0.0.0:9464
WORKDIR /app
COPY --from=build /app/package.json ./package.json
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY --from=build /app/config ./config
RUN chmod 0755 /app/dist/cli/main.js \
 && ln -s /app/dist/cli/main.js /usr/local/bin/wbsync \
 && mkdir -p /data && chown node:node /data && chmod 0700 /data
USER node
VOLUME ["/data"]
# /healthz and /metrics listen on daemon.listen: all interfaces of the container, port 9464 (the web
# console stays off there unless ui.tokenFile is set: it is never served beyond loopback without one).
EXPOSE 9464
HEALTHCHECK --interval=60s --timeout=5s --start-period=120s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:9464/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
ENTRYPOINT ["wbsync"]
CMD ["daemon"]
