# syntax=docker/dockerfile:1

# ---- build: compile TypeScript with the dev dependencies ----
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY scripts ./scripts
RUN npm run build

# ---- runtime: production dependencies and compiled code only ----
FROM node:20-bookworm-slim AS runtime
ENV NODE_ENV=production \
    # run the compiled scripts directly: no build hooks (and no TypeScript) in the image
    npm_config_ignore_scripts=true \
    npm_config_update_notifier=false \
    HOST=0.0.0.0 \
    PORT=3000 \
    KEYS_DIR=/keys
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/dist ./dist
# Keys and the clients file are mounted at run time, never baked in:
#   -v /srv/oauth/keys:/keys:ro -v /srv/oauth/clients.json:/config/clients.json:ro -e CLIENTS_FILE=/config/clients.json
USER node
EXPOSE 3000
HEALTHCHECK --interval=15s --timeout=3s --start-period=10s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
CMD ["node", "dist/src/main.js"]
