# syntax=docker/dockerfile:1

# ---- build: compile TypeScript with the dev dependencies ----
FROM node:24-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
COPY packages/verifier/package.json ./packages/verifier/
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY packages/verifier/tsconfig.json ./packages/verifier/
COPY packages/verifier/src ./packages/verifier/src
COPY src ./src
RUN npm run build

# ---- runtime: production dependencies and compiled code only ----
FROM node:24-slim AS runtime
ENV NODE_ENV=production \
    # no build hooks (and no TypeScript) in the image: everything runs from dist/
    npm_config_ignore_scripts=true \
    npm_config_update_notifier=false \
    HOST=0.0.0.0 \
    # metrics (with METRICS_PORT) reach only what the container publishes: docker run -p, a pod's network
    METRICS_HOST=0.0.0.0 \
    PORT=3000 \
    KEYS_DIR=/keys
WORKDIR /app
COPY package.json package-lock.json ./
COPY packages/verifier/package.json ./packages/verifier/
COPY --from=build /app/packages/verifier/dist ./packages/verifier/dist
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/dist/src ./dist/src
# The license (it asks to be passed on) and the docs `serve --help` points to, as in the tarball.
COPY LICENSE CHANGELOG.md README.md ARCHITECTURE.md BENCHMARKS.md CONTRIBUTING.md ./
COPY docs ./docs
# The operator command on PATH (docker run --rm … oauth2-token-service keys rotate), and the
# mount points owned by the unprivileged user: an empty named volume mounted on /keys takes
# this owner and mode 0700, so the rotation job can write keys that the server reads.
RUN chmod 0755 dist/src/cli/index.js \
 && ln -s /app/dist/src/cli/index.js /usr/local/bin/oauth2-token-service \
 && mkdir -p /keys /config \
 && chown node:node /keys /config \
 && chmod 0700 /keys
# Keys, clients and users are mounted at run time, never baked in:
#   -v /srv/oauth/keys:/keys:ro -v /srv/oauth/config:/config:ro -e CLIENTS_FILE=/config/clients.json -e USERS_FILE=/config/users.json
USER node
EXPOSE 3000
HEALTHCHECK --interval=15s --timeout=3s --start-period=10s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
CMD ["oauth2-token-service", "serve"]
