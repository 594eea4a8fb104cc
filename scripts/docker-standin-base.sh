#!/bin/sh
# Makes a local stand-in for `node:20-bookworm-slim` where no image registry is reachable (an air-gapped site, or
# the development machines of this project, which reach Debian's and npm's registries only), so that
# `docker build` runs the Dockerfile unchanged: a minimal Debian bookworm (debootstrap) with this machine's
# Node.js in /usr/local and a `node` user (uid 1000), as the official image has them. It also carries this
# machine's CA bundle and node headers, for npm behind a TLS proxy and node-gyp without nodejs.org.
# Needs root, debootstrap and a Docker daemon. Usage: sudo sh scripts/docker-standin-base.sh [workdir]
set -eu
WORK=${1:-/tmp/lumen-docker-base}
ROOTFS="$WORK/rootfs"
NODE=$(command -v node)
NODE_PREFIX=$(dirname "$(dirname "$NODE")")
[ -d "$ROOTFS/usr" ] || debootstrap --variant=minbase bookworm "$ROOTFS" http://deb.debian.org/debian
mkdir -p "$ROOTFS/usr/local/bin" "$ROOTFS/usr/local/lib/node_modules" "$ROOTFS/usr/local/include" "$ROOTFS/etc/ssl/certs"
cp "$NODE" "$ROOTFS/usr/local/bin/node"
cp -a "$NODE_PREFIX/lib/node_modules/npm" "$ROOTFS/usr/local/lib/node_modules/"
ln -sf ../lib/node_modules/npm/bin/npm-cli.js "$ROOTFS/usr/local/bin/npm"
ln -sf ../lib/node_modules/npm/bin/npx-cli.js "$ROOTFS/usr/local/bin/npx"
cp -a "$NODE_PREFIX/include/node" "$ROOTFS/usr/local/include/"
cp /etc/ssl/certs/ca-certificates.crt "$ROOTFS/etc/ssl/certs/ca-certificates.crt"
chroot "$ROOTFS" /bin/sh -c 'id node >/dev/null 2>&1 || { groupadd --gid 1000 node && useradd --uid 1000 --gid node --shell /bin/bash --create-home node; }; apt-get clean; rm -rf /var/lib/apt/lists/*'
tar -C "$ROOTFS" -c . | docker import \
  -c 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  -c 'ENV NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt' \
  -c 'ENV npm_config_nodedir=/usr/local' \
  -c 'CMD ["node"]' - node:20-bookworm-slim
docker run --rm node:20-bookworm-slim node -v
