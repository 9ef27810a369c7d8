# The assistant's image: `docker compose up` (compose.yaml) or `docker run`; docs/deployment.md.
# Build: docker build -t ai-assistant .
# Behind a TLS proxy that passes an extra CA (corporate networks), give npm that CA as a build secret; it is mounted
# for the one `npm ci` step and stays in no layer:
#   DOCKER_BUILDKIT=1 docker build --secret id=npm_ca,src=/path/to/ca.pem -t ai-assistant .
# No `# syntax=` line: Docker 20.10's built-in BuildKit reads `RUN --mount=type=secret` without pulling a frontend.
ARG NODE_IMAGE=node:20-bookworm-slim

FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
COPY packages/react/package.json packages/react/
RUN --mount=type=secret,id=npm_ca \
    if [ -s /run/secrets/npm_ca ]; then export NODE_EXTRA_CA_CERTS=/run/secrets/npm_ca; fi; \
    npm ci --no-audit --no-fund
COPY . .
# The client and the server as `npm run build` writes them, without its type check and the React package, which the
# image does not ship (`build:app`; `npm test` checks the types); then the server (with its workers) bundled with the
# packages it imports, so the image needs no node_modules: React and Chakra are production dependencies of the page,
# not of the server, and `npm ci --omit=dev` would bring them all (an image of about 300 MB instead of 200).
RUN npm run -s build:app \
 && npx esbuild dist/server/main.js dist/server/html-worker.js dist/server/index-worker.js \
      --bundle --splitting --format=esm --platform=node --target=node20 --outdir=bundle \
      --external:pg-native --log-level=warning \
      '--banner:js=import { createRequire as __createRequire } from "node:module"; const require = __createRequire(import.meta.url);' \
 && cp -r dist/server/migrations dist/server/handoff-migrations bundle/

FROM ${NODE_IMAGE}
# tini as PID 1: it passes `docker stop`'s SIGTERM to Node (which drains the replies in flight, then exits 0) and
# reaps zombies, with or without `docker run --init`.
RUN apt-get update -qq \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends tini >/dev/null \
 && apt-get clean \
 && rm -rf /var/lib/apt/lists/* /var/cache/apt/*.bin /var/log/apt /var/log/dpkg.log
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=3000 \
    DATA_DIR=/data
WORKDIR /app
# The data folder belongs to the server's user before it becomes a volume, so that a new named volume does too.
RUN mkdir /data && chown node:node /data
COPY --from=build /app/package.json ./
COPY --from=build /app/dist/client dist/client
COPY --from=build /app/bundle dist/server
USER node
VOLUME /data
EXPOSE 3000
# Node itself asks /healthz (the image has no curl), at the PORT and BASE_PATH the server was given.
HEALTHCHECK --interval=10s --timeout=5s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch(`http://127.0.0.1:${process.env.PORT}${process.env.BASE_PATH ?? ''}/healthz`).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
STOPSIGNAL SIGTERM
ENTRYPOINT ["/usr/bin/tini", "--"]
CMD ["node", "dist/server/main.js"]
