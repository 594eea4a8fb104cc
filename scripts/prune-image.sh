#!/bin/sh
# The Docker build stage runs this after `npm prune --omit=dev` (issue #29): it removes from node_modules what
# the image never runs, before the run stage copies the tree (a later `rm` would not shrink the image).
#  - onnxruntime-node ships its native library for every platform: keep linux/<this architecture> only;
#  - @ffmpeg-installer and @ffprobe-installer: the image runs Debian's ffmpeg (FFMPEG_PATH, FFPROBE_PATH), and
#    src/files/binaries.ts falls back to the PATH when the packages are absent;
#  - better-sqlite3's C sources and object files: the compiled addon (build/Release/*.node) is what loads.
# test/docker/dockerfile.test.ts runs it on the emulated image and checks what is left (figures:
# docs/measurements/docker.md). Usage: sh scripts/prune-image.sh [node_modules folder]
set -eu
NM=${1:-node_modules}
ARCH=$(node -p process.arch)
for napi in "$NM"/onnxruntime-node/bin/napi-v*; do
  [ -d "$napi" ] || continue
  for os in "$napi"/*; do
    [ "$(basename "$os")" = linux ] || rm -rf "$os"
  done
  for arch in "$napi"/linux/*; do
    [ "$(basename "$arch")" = "$ARCH" ] || rm -rf "$arch"
  done
done
rm -rf "$NM"/@ffmpeg-installer "$NM"/@ffprobe-installer
rm -rf "$NM"/better-sqlite3/deps "$NM"/better-sqlite3/src "$NM"/better-sqlite3/build/Release/obj \
  "$NM"/better-sqlite3/build/Release/obj.target "$NM"/better-sqlite3/build/Release/sqlite3.a \
  "$NM"/better-sqlite3/build/Release/test_extension.node \
  "$NM"/better-sqlite3/build/deps
# onnxruntime-web: @huggingface/transformers names it, but its Node build bundles what it uses of it and loads
# onnxruntime-node; test/docker/container.test.ts runs the models in the built image without it.
rm -rf "$NM"/onnxruntime-web
