# syntax=docker/dockerfile:1
# svc in a container: `docker build -t svc .` (add `--build-arg WITH_NATS_SERVER=true` for
# providers.queue.type jetstream-embedded, `--build-arg WITH_BUBBLEWRAP=true` for sandbox.isolation bubblewrap). The node runs as the unprivileged `node` user, keeps its store
# in the /var/lib/svc volume, and drains on SIGTERM (give `docker stop` time: ops/deploy.md).

# 1. build: install every dependency (native ones compile here if no prebuilt binary fits), bundle to dist/,
#    then drop the development dependencies.
FROM node:20-bookworm-slim AS build
RUN apt-get update \
  && apt-get install -y --no-install-recommends python3 make g++ \
  && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY package.json package-lock.json tsconfig.json ./
COPY schema schema
COPY bus bus
COPY actors actors
COPY projections projections
COPY http http
COPY scripts scripts
COPY dashboard dashboard
# `npm ci` runs the `prepare` script, which is the build.
RUN npm ci && npm prune --omit=dev

# 2. run: the build output, production dependencies, the example tool server, a Tier A file for containers.
FROM node:20-bookworm-slim
ARG WITH_NATS_SERVER=false
ARG WITH_BUBBLEWRAP=false
# Debian's nats-server, only for `jetstream-embedded`; the memory engine and an external cluster need none.
RUN if [ "$WITH_NATS_SERVER" = "true" ]; then \
      apt-get update && apt-get install -y --no-install-recommends nats-server && rm -rf /var/lib/apt/lists/*; \
    fi
# Debian's bubblewrap, only for `sandbox.isolation: bubblewrap` (the container must allow user namespaces:
# ops/deploy.md); `process` isolation needs nothing.
RUN if [ "$WITH_BUBBLEWRAP" = "true" ]; then \
      apt-get update && apt-get install -y --no-install-recommends bubblewrap && rm -rf /var/lib/apt/lists/*; \
    fi
ENV NODE_ENV=production \
    SVC_CONFIG=/etc/svc/config.yaml
WORKDIR /app
COPY --from=build /src/package.json ./package.json
COPY --from=build /src/node_modules ./node_modules
COPY --from=build /src/dist ./dist
COPY ops/examples ./ops/examples
COPY ops/company.example.yaml ./ops/company.example.yaml
COPY ops/docker/config.yaml /etc/svc/config.yaml
RUN mkdir -p /var/lib/svc && chown node:node /var/lib/svc
USER node
VOLUME ["/var/lib/svc"]
EXPOSE 8080
STOPSIGNAL SIGTERM
# Healthy once the node serves a configured company: /ready answers 503 until a document is active and
# while the node drains or is shed.
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:8080/ready').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# Exec form: SIGTERM reaches the node, which drains. Run with an init (`docker run --init`, compose
# `init: true`) so the tool-server processes it starts are reaped.
CMD ["node", "dist/scripts/svc.js", "serve"]
