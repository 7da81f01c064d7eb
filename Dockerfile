# The commonplace worker image: the compiled package, its production dependencies, git, and the
# harness CLIs. It runs as the unprivileged user `node`; docker-compose.yml starts it as the
# checkout worker (the KB mounted at its host path) and as the launch workers (no KB).
#
# Harness CLIs are installed from HARNESS_CLIS, exact versions only; the default is the set the
# project checks its profiles against (tools/harness-clis/package.json). Other versions, or none:
#   docker compose build --build-arg HARNESS_CLIS="@openai/codex@0.171.0"
#   docker compose build --build-arg HARNESS_CLIS=""
# WORKER_UID / WORKER_GID: the user the worker runs as; give the owner of the KB checkout on the
# host (`id -u`, `id -g`) when it is not 1000, so the checkout worker can write to it.
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund --ignore-scripts
COPY tsconfig.json tsconfig.build.json ./
COPY src src
COPY temporal temporal
COPY scripts/compile.js scripts/bundle-workflows.js scripts/bundle-cli.js scripts/
COPY bin bin
# The build compiles (esbuild, one module to one file), bundles the workflow code once (dist/workflow-bundle.js:
# workers load it), then the CLI into dist/cli.cjs (docs/cli.md, "How a command starts").
RUN npm run build

FROM node:20-bookworm-slim
ARG HARNESS_CLIS="@anthropic-ai/claude-code@2.1.197 @openai/codex@0.171.0 @mariozechner/pi-coding-agent@0.73.1"
ARG WORKER_UID=1000
ARG WORKER_GID=1000
RUN apt-get update \
 && apt-get install -y --no-install-recommends git ca-certificates \
 && rm -rf /var/lib/apt/lists/* \
 && git config --system --add safe.directory '*'
RUN if [ -n "$HARNESS_CLIS" ]; then npm install -g --no-audit --no-fund $HARNESS_CLIS && npm cache clean --force; fi
RUN if [ "$WORKER_GID" != 1000 ]; then groupmod -g "$WORKER_GID" node; fi \
 && if [ "$WORKER_UID" != 1000 ]; then usermod -u "$WORKER_UID" node; fi \
 && mkdir -p /state \
 && chown node:node /state /home/node
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund --ignore-scripts && npm cache clean --force
COPY --from=build /app/dist dist
COPY bin bin
COPY defaults defaults
COPY methods methods
COPY examples examples
COPY temporal/versions.json temporal/dynamic-config.json temporal/
RUN ln -s /app/bin/commonplace.js /usr/local/bin/commonplace
ENV TEMPORAL_ADDRESS=temporal:7233 TEMPORAL_NAMESPACE=default COMMONPLACE_STATE_DIR=/state
USER node
WORKDIR /state
ENTRYPOINT ["commonplace"]
CMD ["worker", "--state", "/state"]
