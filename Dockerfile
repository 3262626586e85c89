# syntax=docker/dockerfile:1
# platform-apiserver: the built server (dist/) and its production dependencies on node:20-slim.
#
#   docker build -t platform-apiserver .
#   docker run -p 6443:6443 -v apiserver-data:/data platform-apiserver [flags; --help lists them]
#
# There is no Docker engine on the machines this project is developed on, so this file is never built
# there. Its steps are the ones test/server/packaging.test.ts runs: `tsc -p tsconfig.build.json`, then
# package.json + package-lock.json + dist/ + bin/ in a clean directory, `npm ci --omit=dev`, and
# `node dist/apiserver/main.js` answering /readyz. Keep the two in step.

ARG NODE_IMAGE=node:20-slim

# Build: all dependencies (TypeScript), then the server alone (tsconfig.build.json: no tests or helpers).
FROM ${NODE_IMAGE} AS build
WORKDIR /src
COPY package.json package-lock.json ./
# --ignore-scripts: tsc needs no dependency's install script (and none then needs a compiler toolchain).
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY apiserver ./apiserver
COPY storage ./storage
RUN npx tsc -p tsconfig.build.json

# Production dependencies only, installed from the same lock.
FROM ${NODE_IMAGE} AS prod-deps
WORKDIR /app
COPY package.json package-lock.json ./
# No production dependency needs its install script to run the server (the packaging test runs without them).
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund && npm cache clean --force

# Runtime: dist/, bin/ and production node_modules; no sources, no npm cache.
FROM ${NODE_IMAGE}
ENV NODE_ENV=production
WORKDIR /app
COPY --from=prod-deps /app/node_modules ./node_modules
COPY package.json ./
COPY bin ./bin
COPY --from=build /src/dist ./dist
# The default --data-dir below (generated certificates and kubeconfig, the embedded store without etcd);
# the only path the server writes, so a read-only root filesystem with a volume here works.
RUN mkdir /data && chown 1000:1000 /data
# The image's `node` user, by number (Kubernetes' runAsNonRoot can verify a number, not a name) and the
# same as the chart's runAsUser/runAsGroup; files stay root's, read-only to it. State goes to --data-dir
# (a volume) or etcd, never into the image.
USER 1000:1000
EXPOSE 6443
# The flags of bin/platform-apiserver: --max-semi-space-size=32 (see there and docs/BENCHMARKS.md, part 10).
# node runs as PID 1 and handles SIGTERM itself (graceful drain); run with --init for zombie reaping if needed.
ENTRYPOINT ["node", "--max-semi-space-size=32", "dist/apiserver/main.js"]
# Arguments given to `docker run` (or a pod's args) replace this default.
CMD ["--data-dir=/data"]
