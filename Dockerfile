# A commonplace worker image: the compiled package and its production dependencies.
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund --ignore-scripts
COPY tsconfig.json tsconfig.build.json ./
COPY src src
COPY temporal temporal
RUN npm run build

FROM node:20-bookworm-slim
RUN apt-get update && apt-get install -y --no-install-recommends git ca-certificates && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund --ignore-scripts
COPY --from=build /app/dist dist
COPY bin bin
COPY defaults defaults
COPY temporal/versions.json temporal/dynamic-config.json temporal/
ENV TEMPORAL_ADDRESS=temporal:7233 TEMPORAL_NAMESPACE=default COMMONPLACE_STATE_DIR=/state
WORKDIR /kb
ENTRYPOINT ["node", "/app/bin/commonplace.js"]
CMD ["worker"]
