/**
 * SSRF guard for server-side fetches of client-supplied URLs.
 *
 * `assertPublicHost` resolves a host name once, refuses it when the name or any
 * address it resolves to is loopback / private / link-local / otherwise not
 * publicly routable, and returns the addresses it checked. The caller must then
 * connect to exactly those addresses (see `pinnedLookup`), never resolve the
 * name again: that is what defeats DNS rebinding (a name that answers with a
 * public address for the check and a private one for the connection).
 */
import dns from 'node:dns';
import net from 'node:net';
import { invalid, unprocessable } from '../../platform/errors.js';

export interface ResolvedAddress {
  address: string;
  family: number;
}

/** Injectable DNS resolution: every address the name resolves to. */
export type LookupFn = (hostname: string) => Promise<ResolvedAddress[]>;

/** The system resolver (getaddrinfo, so /etc/hosts is honoured), all addresses. */
export const defaultLookup: LookupFn = async (hostname) => dns.promises.lookup(hostname, { all: true, verbatim: true });

// ---------------------------------------------------------------------------
// Address classification
// ---------------------------------------------------------------------------

/** IPv4 ranges that are not publicly routable, as [network, prefix length]. */
const PRIVATE_V4: Array<[string, number]> = [
  ['0.0.0.0', 8], // "this network", incl. the unspecified 0.0.0.0
  ['10.0.0.0', 8], // private
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local, incl. 169.254.169.254 cloud metadata
  ['172.16.0.0', 12], // private
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24], // TEST-NET-1
  ['192.88.99.0', 24], // deprecated 6to4 relay anycast
  ['192.168.0.0', 16], // private
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // TEST-NET-2
  ['203.0.113.0', 24], // TEST-NET-3
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, incl. broadcast 255.255.255.255
];

function v4ToInt(ip: string): number {
  const parts = ip.split('.').map(Number);
  return ((parts[0] << 24) | (parts[1] << 16) | (parts[2] << 8) | parts[3]) >>> 0;
}

const PRIVATE_V4_INT = PRIVATE_V4.map(([net4, bits]) => {
  const mask = bits === 0 ? 0 : (0xffffffff << (32 - bits)) >>> 0;
  return { base: (v4ToInt(net4) & mask) >>> 0, mask };
});

function isPrivateV4Int(n: number): boolean {
  return PRIVATE_V4_INT.some(({ base, mask }) => (n & mask) >>> 0 === base);
}

/** Parses a valid IPv6 literal (no brackets, no zone) into its 8 16-bit groups. */
function parseV6(ip: string): number[] {
  let text = ip.toLowerCase();
  // A trailing dotted quad (::ffff:1.2.3.4) stands for the last two groups.
  const lastColon = text.lastIndexOf(':');
  const tail = text.slice(lastColon + 1);
  if (tail.includes('.')) {
    const n = v4ToInt(tail);
    text = `${text.slice(0, lastColon + 1)}${(n >>> 16).toString(16)}:${(n & 0xffff).toString(16)}`;
  }
  const toGroups = (s: string) => (s === '' ? [] : s.split(':').map((g) => parseInt(g, 16)));
  const dbl = text.indexOf('::');
  if (dbl < 0) return toGroups(text);
  const head = toGroups(text.slice(0, dbl));
  const rest = toGroups(text.slice(dbl + 2));
  return [...head, ...new Array<number>(8 - head.length - rest.length).fill(0), ...rest];
}

function isPrivateV6Groups(g: number[]): boolean {
  const embeddedV4 = (hi: number, lo: number) => ((hi << 16) | lo) >>> 0;
  const zeroUpTo = (n: number) => g.slice(0, n).every((x) => x === 0);

  // ::/96 — unspecified (::), loopback (::1) and deprecated IPv4-compatible (::a.b.c.d).
  if (zeroUpTo(6)) return true;
  // ::ffff:0:0/96 — IPv4-mapped: judge the IPv4 address it carries.
  if (zeroUpTo(5) && g[5] === 0xffff) return isPrivateV4Int(embeddedV4(g[6], g[7]));
  // ::ffff:0:0:0/96 — SIIT IPv4-translated.
  if (zeroUpTo(4) && g[4] === 0xffff && g[5] === 0) return isPrivateV4Int(embeddedV4(g[6], g[7]));
  // 64:ff9b::/96 — NAT64 well-known prefix: reaches the embedded IPv4 address.
  if (g[0] === 0x64 && g[1] === 0xff9b && g.slice(2, 6).every((x) => x === 0)) {
    return isPrivateV4Int(embeddedV4(g[6], g[7]));
  }
  // 64:ff9b:1::/48 — local-use NAT64.
  if (g[0] === 0x64 && g[1] === 0xff9b && g[2] === 1) return true;
  // 2002::/16 — 6to4: the IPv4 address is in groups 1–2.
  if (g[0] === 0x2002) return isPrivateV4Int(embeddedV4(g[1], g[2]));
  // 2001::/32 — Teredo: the client's IPv4 address is the last 32 bits, inverted.
  if (g[0] === 0x2001 && g[1] === 0) return isPrivateV4Int(~embeddedV4(g[6], g[7]) >>> 0);
  // 2001:db8::/32 — documentation.
  if (g[0] === 0x2001 && g[1] === 0x0db8) return true;
  // Only 2000::/3 is global unicast. Everything else — ULA fc00::/7, link-local
  // fe80::/10, site-local fec0::/10, multicast ff00::/8, discard 100::/64,
  // unallocated space — is refused.
  return (g[0] & 0xe000) !== 0x2000;
}

/**
 * True when `ip` is not a publicly routable unicast address: loopback, private,
 * link-local (incl. cloud metadata), CGNAT, 0.0.0.0/8, multicast, broadcast,
 * reserved and documentation ranges, unspecified, and IPv6 forms that embed one
 * of those (IPv4-mapped `::ffff:127.0.0.1`, NAT64, 6to4, Teredo). Anything that
 * is not a valid IP literal also counts as private (fail closed). Accepts
 * bracketed (`[::1]`) and zoned (`fe80::1%eth0`) IPv6 forms.
 */
export function isPrivateAddress(ip: string): boolean {
  let text = ip.trim();
  if (text.startsWith('[') && text.endsWith(']')) text = text.slice(1, -1);
  const zone = text.indexOf('%');
  if (zone >= 0) text = text.slice(0, zone);
  const kind = net.isIP(text);
  if (kind === 4) return isPrivateV4Int(v4ToInt(text));
  if (kind === 6) return isPrivateV6Groups(parseV6(text));
  return true;
}

// ---------------------------------------------------------------------------
// Host names
// ---------------------------------------------------------------------------

const BLOCKED_NAMES = new Set([
  'localhost',
  'localhost.localdomain',
  'ip6-localhost',
  'ip6-loopback',
  'metadata',
  'metadata.google.internal',
  'metadata.goog',
  'instance-data',
]);
const BLOCKED_SUFFIXES = ['.localhost', '.internal', '.local', '.localdomain', '.home.arpa', '.intranet', '.lan'];

/** Lower-cases, strips IPv6 brackets and trailing dots (`localhost.` is `localhost`). */
export function normalizeHostname(hostname: string): string {
  let h = hostname.trim().toLowerCase();
  if (h.startsWith('[') && h.endsWith(']')) h = h.slice(1, -1);
  while (h.endsWith('.')) h = h.slice(0, -1);
  return h;
}

/**
 * True for names that denote this machine or internal infrastructure whatever
 * they resolve to: localhost and *.localhost, cloud metadata names, internal-use
 * suffixes (.internal, .local, .home.arpa, ...) and single-label names (which
 * the resolver completes with local search domains).
 */
export function isBlockedHostname(hostname: string): boolean {
  const h = normalizeHostname(hostname);
  if (net.isIP(h)) return false;
  if (h === '' || !h.includes('.')) return true;
  if (BLOCKED_NAMES.has(h)) return true;
  return BLOCKED_SUFFIXES.some((s) => h.endsWith(s));
}

/**
 * Resolves `hostname` (or takes it as is when it is an IP literal) and returns
 * the addresses to connect to. Unless `allowPrivate`, throws `invalid_input`
 * (400) when the name is blocked or when ANY address it resolves to is private,
 * so the caller may connect to any of the returned addresses. Resolution
 * failures throw `unprocessable` (422).
 */
export async function assertPublicHost(
  hostname: string,
  lookup: LookupFn = defaultLookup,
  allowPrivate = false,
): Promise<ResolvedAddress[]> {
  const host = normalizeHostname(hostname);
  const refused = () =>
    invalid(`image URL host "${host}" is not allowed: it is a private, loopback or internal address`);

  const literal = net.isIP(host.split('%')[0]);
  if (literal) {
    if (!allowPrivate && isPrivateAddress(host)) throw refused();
    return [{ address: host, family: literal }];
  }
  if (!allowPrivate && isBlockedHostname(host)) throw refused();

  let addresses: ResolvedAddress[];
  try {
    addresses = await lookup(host);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException)?.code;
    throw unprocessable(`could not fetch image: host "${host}" could not be resolved${code ? ` (${code})` : ''}`);
  }
  const valid = (addresses ?? []).filter((a) => a && net.isIP(a.address));
  if (valid.length === 0) throw unprocessable(`could not fetch image: host "${host}" could not be resolved`);
  if (!allowPrivate && valid.some((a) => isPrivateAddress(a.address))) throw refused();
  return valid.map((a) => ({ address: a.address, family: net.isIP(a.address) }));
}

type LookupCallback = (
  err: NodeJS.ErrnoException | null,
  address: string | dns.LookupAddress[],
  family?: number,
) => void;

/**
 * A `lookup` for `net.connect` / `http.request` options that never touches DNS:
 * it answers with the already-validated addresses, so the socket goes exactly
 * where the check said. The request keeps the original host name for the Host
 * header and TLS SNI / certificate verification. Handles both call shapes
 * (`all: true` is used by Node's autoSelectFamily / happy eyeballs).
 */
export function pinnedLookup(addresses: ResolvedAddress[]) {
  return (_hostname: string, options: dns.LookupOptions | number | undefined, callback: LookupCallback): void => {
    const opts = typeof options === 'object' && options !== null ? options : {};
    const wanted = opts.family === 4 || opts.family === 6 ? opts.family : 0;
    const list = addresses.filter((a) => wanted === 0 || a.family === wanted);
    if (list.length === 0) {
      const err: NodeJS.ErrnoException = new Error(`no validated address of family ${wanted}`);
      err.code = 'ENOTFOUND';
      process.nextTick(callback, err, '', 0);
      return;
    }
    if (opts.all)
      process.nextTick(
        callback,
        null,
        list.map((a) => ({ address: a.address, family: a.family })),
      );
    else process.nextTick(callback, null, list[0].address, list[0].family);
  };
}
