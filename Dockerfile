# The verifier service (and the CLI: audit-worker, accounts, keys) as a container image.
# Two stages: the build has the dev dependencies (TypeScript, the bundler, the API reference UI);
# the runtime has the production dependencies and what the build made, and runs as a user without
# privileges. test/deploy-files.test.ts holds its commands to the README's.

FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY . .
# As the README: npm ci installs exactly the lock file and builds both packages (the prepare script).
RUN npm ci --no-audit --no-fund

FROM node:24-bookworm-slim AS runtime
ENV NODE_ENV=production
WORKDIR /app
COPY package.json package-lock.json ./
COPY packages/core/package.json packages/core/
COPY packages/service/package.json packages/service/
# Production dependencies only; no script runs (the build is copied in below; better-sqlite3
# ships its Node-API binaries).
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/packages/core/dist packages/core/dist
COPY --from=build /app/packages/service/dist packages/service/dist
COPY --from=build /app/packages/service/bin packages/service/bin
COPY --from=build /app/packages/service/assets packages/service/assets
COPY --from=build /app/packages/service/docs packages/service/docs
# The SQLite store of a single container lives in /data (a volume); with the PostgreSQL store it
# stays empty. The image's user (node, uid 1000) owns it, and nothing else it can write. The CLI
# is linked onto the PATH (npm links no workspace's command when dev dependencies are left out).
RUN mkdir -m 0700 /data && chown node:node /data \
 && ln -s /app/packages/service/bin/evm-integrity.js /usr/local/bin/evm-integrity
VOLUME ["/data"]
USER node
# Listening on every address of the container (its network namespace); publish only what must be
# reached. `evm-integrity` (linked above) runs the admin commands: `docker exec … evm-integrity keys list`.
# MALLOC_MMAP_THRESHOLD_: glibc maps every allocation of 128 KiB or more on its own and unmaps it
# when freed; unset, it raises that threshold to the size of a freed block, up to 32 MiB, and keeps
# request bodies up to that size in its heaps, which it does not give back (docs/service.md, Memory).
ENV EVM_INTEGRITY_HOST=0.0.0.0 \
    EVM_INTEGRITY_DATA_DIR=/data \
    MALLOC_MMAP_THRESHOLD_=131072
EXPOSE 8080
# Liveness: /v1/health on the port the configuration gives.
HEALTHCHECK --interval=10s --timeout=3s --start-period=10s --retries=3 \
  CMD node -e "fetch('http://127.0.0.1:' + (process.env.EVM_INTEGRITY_PORT || process.env.PORT || 8080) + '/v1/health').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"
# npm start's command, run directly: node is the process that gets SIGTERM and drains its requests.
CMD ["node", "packages/service/bin/evm-integrity.js", "serve"]
