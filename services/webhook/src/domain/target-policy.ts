import { lookup as dnsLookup } from "node:dns";
import { BlockList, isIP } from "node:net";

/**
 * Which addresses a webhook or validation URL may reach. Unless private targets are allowed, loopback,
 * private, link-local, CGNAT, multicast, unspecified and reserved ranges are refused, also when they hide
 * inside IPv6 (IPv4-mapped, IPv4-compatible, NAT64, 6to4).
 */
/** What kind of address a range holds, as refusals say it: never the address itself (it may be internal). */
const LOOPBACK = "a loopback address";
const PRIVATE = "a private address";
const LINK_LOCAL = "a link-local address (cloud metadata lives there)";
const SHARED = "a shared (carrier-grade NAT) address";
const UNSPECIFIED = "an unspecified address";
const MULTICAST = "a multicast address";
const DOCUMENTATION = "a documentation address";
const RESERVED = "a reserved address";

const FORBIDDEN_V4: Array<[string, number, string]> = [
  ["0.0.0.0", 8, UNSPECIFIED], // "this network"
  ["10.0.0.0", 8, PRIVATE],
  ["100.64.0.0", 10, SHARED], // CGNAT
  ["127.0.0.0", 8, LOOPBACK],
  ["169.254.0.0", 16, LINK_LOCAL], // cloud metadata
  ["172.16.0.0", 12, PRIVATE],
  ["192.0.0.0", 24, RESERVED], // IETF protocol assignments
  ["192.0.2.0", 24, DOCUMENTATION],
  ["192.88.99.0", 24, RESERVED], // 6to4 relay anycast
  ["192.168.0.0", 16, PRIVATE],
  ["198.18.0.0", 15, RESERVED], // benchmarking
  ["198.51.100.0", 24, DOCUMENTATION],
  ["203.0.113.0", 24, DOCUMENTATION],
  ["224.0.0.0", 4, MULTICAST],
  ["240.0.0.0", 4, RESERVED], // reserved, broadcast
];

const FORBIDDEN_V6: Array<[string, number, string]> = [
  ["::", 128, UNSPECIFIED],
  ["::1", 128, LOOPBACK],
  ["100::", 64, RESERVED], // discard-only
  ["2001:db8::", 32, DOCUMENTATION],
  ["fc00::", 7, PRIVATE], // unique local
  ["fe80::", 10, LINK_LOCAL],
  ["fec0::", 10, PRIVATE], // site-local (deprecated)
  ["ff00::", 8, MULTICAST],
];

/** One BlockList per range, so that a refusal can say which kind of address it met. */
function rangesOf(ranges: Array<[string, number, string]>, family: "ipv4" | "ipv6"): Array<[BlockList, string]> {
  return ranges.map(([network, prefix, kind]) => {
    const list = new BlockList();
    list.addSubnet(network, prefix, family);
    return [list, kind];
  });
}

const forbiddenV4 = rangesOf(FORBIDDEN_V4, "ipv4");
const forbiddenV6 = rangesOf(FORBIDDEN_V6, "ipv6");

function kindIn(ranges: Array<[BlockList, string]>, address: string, family: "ipv4" | "ipv6"): string | undefined {
  return ranges.find(([list]) => list.check(address, family))?.[1];
}

/** The 16 bytes of an IPv6 address (`::ffff:127.0.0.1` and `::ffff:7f00:1` alike). */
function ipv6Bytes(address: string): Buffer {
  let text = address.toLowerCase().split("%")[0] ?? "";
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted?.[1]) {
    const octets = dotted[1].split(".").map(Number);
    text = `${text.slice(0, -dotted[1].length)}${((octets[0]! << 8) | octets[1]!).toString(16)}:${((octets[2]! << 8) | octets[3]!).toString(16)}`;
  }
  const [head = "", tail] = text.split("::");
  const headGroups = head ? head.split(":") : [];
  const tailGroups = tail ? tail.split(":") : [];
  const groups =
    tail === undefined ? headGroups : [...headGroups, ...Array(8 - headGroups.length - tailGroups.length).fill("0"), ...tailGroups];
  const bytes = Buffer.alloc(16);
  for (const [index, group] of groups.entries()) bytes.writeUInt16BE(Number.parseInt(group || "0", 16), index * 2);
  return bytes;
}

function ipv4Of(bytes: Buffer, offset: number): string {
  return `${bytes[offset]}.${bytes[offset + 1]}.${bytes[offset + 2]}.${bytes[offset + 3]}`;
}

/** IPv4 addresses that an IPv6 address carries and that a network may route to. */
function embeddedIpv4(bytes: Buffer): string | undefined {
  const zeroUpTo = (end: number) => bytes.subarray(0, end).every((byte) => byte === 0);
  if (zeroUpTo(10) && bytes[10] === 0xff && bytes[11] === 0xff) return ipv4Of(bytes, 12); // ::ffff:a.b.c.d (mapped)
  if (zeroUpTo(12)) return ipv4Of(bytes, 12); // ::a.b.c.d (compatible, deprecated)
  if (bytes.readUInt32BE(0) === 0x0064ff9b && bytes.subarray(4, 12).every((byte) => byte === 0)) return ipv4Of(bytes, 12); // NAT64
  if (bytes.readUInt16BE(0) === 0x2002) return ipv4Of(bytes, 2); // 6to4
  return undefined;
}

/**
 * What kind of forbidden address this is ("a loopback address", "an IPv6 address carrying a private address", …),
 * or undefined when it may be a target. The kind, never the address: refusals are shown to callers, and the
 * address a name resolves to may be internal.
 */
export function forbiddenAddressReason(address: string): string | undefined {
  const family = isIP(address);
  if (family === 4) return kindIn(forbiddenV4, address, "ipv4");
  if (family !== 6) return "not an IP address";
  const bytes = ipv6Bytes(address);
  const normalised = bytes.toString("hex").replace(/(.{4})(?!$)/g, "$1:");
  const kind = kindIn(forbiddenV6, normalised, "ipv6");
  if (kind) return kind;
  const inner = embeddedIpv4(bytes);
  const innerKind = inner ? kindIn(forbiddenV4, inner, "ipv4") : undefined;
  return innerKind ? `an IPv6 address carrying ${innerKind}` : undefined;
}

export interface ResolvedAddress {
  address: string;
  family: number;
}

/** Resolves a host name to every address the system resolver gives (what a connection would dial). */
export type HostResolver = (hostname: string) => Promise<ResolvedAddress[]>;

export const systemResolver: HostResolver = (hostname) =>
  new Promise((resolve, reject) => {
    dnsLookup(hostname, { all: true, verbatim: true }, (error, addresses) => (error ? reject(error) : resolve(addresses)));
  });

/** The host of a URL as a connection sees it: IPv6 literals lose their brackets. */
export function hostOf(url: URL): string {
  return url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname;
}

export type TargetVerdict = { allowed: true } | { allowed: false; reason: string };

/**
 * The check at creation: an IP literal is judged as it is; a host name is resolved and refused when any of
 * its addresses is forbidden. A name that does not resolve (yet) is accepted: the connect-time guard judges
 * whatever it resolves to when a request is actually made.
 */
export class TargetPolicy {
  constructor(
    readonly allowPrivate: boolean,
    private readonly resolver: HostResolver = systemResolver,
    private readonly resolveTimeoutMs = 2_000,
  ) {}

  async check(url: URL): Promise<TargetVerdict> {
    if (this.allowPrivate) return { allowed: true };
    const host = hostOf(url);
    if (isIP(host)) {
      const kind = forbiddenAddressReason(host);
      return kind ? { allowed: false, reason: `the URL's host is ${kind}` } : { allowed: true };
    }
    let addresses: ResolvedAddress[];
    try {
      addresses = await withTimeout(this.resolver(host), this.resolveTimeoutMs);
    } catch {
      return { allowed: true };
    }
    const kind = this.refusalOf(addresses);
    return kind ? { allowed: false, reason: `the URL's host name resolves to ${kind}` } : { allowed: true };
  }

  /**
   * The same rule for a connection about to be made: every address the name resolved to must be allowed. Answers
   * the kind of the first forbidden address (see forbiddenAddressReason), never the address.
   */
  refusalOf(addresses: ResolvedAddress[]): string | undefined {
    if (this.allowPrivate) return undefined;
    for (const { address } of addresses) {
      const reason = forbiddenAddressReason(address);
      if (reason) return reason;
    }
    return undefined;
  }

  get resolve(): HostResolver {
    return this.resolver;
  }
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    promise,
    new Promise<T>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}
