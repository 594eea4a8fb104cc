# Build: compile the server and the models CLI (scripts/models.ts → dist/scripts/models.js), bundle the web app (dist/web),
# then keep the production dependencies only, less what the image never runs (scripts/prune-image.sh: other
# platforms' onnxruntime binaries, onnxruntime-web, the npm ffmpeg/ffprobe packages, better-sqlite3's sources:
# node_modules 758 → 210 MB).
FROM node:20-bookworm-slim AS build
WORKDIR /app
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json .npmrc ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY web ./web
COPY scripts/models.ts scripts/build-web.ts scripts/web-icons.ts scripts/prune-image.sh ./scripts/
RUN npm run build && npm prune --omit=dev && sh scripts/prune-image.sh node_modules

# Run: Debian's ffmpeg and perl (ExifTool, vendored by exiftool-vendored, is a Perl program), the compiled server
# and CLI, two volumes (/data: the library; /models: model weights).
# test/docker/dockerfile.test.ts checks what can be checked without Docker: every COPY source exists after the
# build, and the server and CLI run from this layout with production dependencies only.
FROM node:20-bookworm-slim
RUN apt-get update \
 && apt-get install -y --no-install-recommends ffmpeg perl tini \
 && apt-get clean && rm -rf /var/lib/apt/lists/* \
 && mkdir -p /data /models && chown node:node /data /models
WORKDIR /app
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json ./
# Files the server reads at run time beside the code (PACKAGE_ROOT/src/...): migrations and the tag vocabulary.
COPY src/storage/sqlite/migrations ./src/storage/sqlite/migrations
COPY src/storage/postgres/migrations ./src/storage/postgres/migrations
COPY src/index/vector/postgres/migrations ./src/index/vector/postgres/migrations
COPY src/features/ai/data ./src/features/ai/data
# The shipped model catalog stays with the code (/app/models), so a new image brings its catalog; the volume
# at MODELS_DIR holds the weights, checksums.lock.json and the site's own catalog.local.json.
COPY models/catalog.json models/README.md ./models/
ENV NODE_ENV=production \
    DATA_DIR=/data \
    MODELS_DIR=/models \
    PORT=3000 \
    FFMPEG_PATH=/usr/bin/ffmpeg \
    FFPROBE_PATH=/usr/bin/ffprobe
USER node
# WITH_MODELS=1 bakes the default models into the image (air-gapped sites): fetched and verified at build
# time, before /models becomes a volume, so a new named volume starts with them. Without it, the server
# fetches what is missing in the background at first start (AUTO_FETCH_MODELS, off when OFFLINE=1).
ARG WITH_MODELS=0
RUN if [ "$WITH_MODELS" = "1" ]; then node dist/scripts/models.js fetch && node dist/scripts/models.js verify; fi
VOLUME ["/data", "/models"]
EXPOSE 3000
HEALTHCHECK --interval=30s --timeout=5s CMD node -e "fetch('http://127.0.0.1:3000/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
# `docker stop` sends SIGTERM (tini passes it on) and kills after 10 s by default: the server's shutdown fits in
# SHUTDOWN_GRACE_SECONDS (default 7), running jobs included (README "Docker": stopping).
STOPSIGNAL SIGTERM
ENTRYPOINT ["tini", "--"]
CMD ["node", "--enable-source-maps", "dist/src/main.js"]
