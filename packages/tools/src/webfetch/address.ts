/**
 * Which network addresses webfetch refuses unless private networks are allowed: loopback,
 * private, link-local and the other ranges that never name a public web server. IPv6 forms that
 * carry an IPv4 address (mapped, NAT64, 6to4) are judged by the IPv4 address they carry, so
 * `::ffff:127.0.0.1` is loopback like `127.0.0.1`.
 *
 * The check runs on the address a connection is about to use (after DNS), never on the host
 * name: the HTTP client that webfetch uses (`WebFetchClient`) calls `refusal` at connect time.
 */
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
// The modules, not the net index: it loads every net module (DNS, interfaces…).
import * as IpNetwork from "effect/net/IpNetwork"
import * as NetAddress from "effect/net/NetAddress"

export type AddressKind =
  | "loopback"
  | "private"
  | "link-local"
  | "unspecified"
  | "shared (carrier-grade NAT)"
  | "multicast"
  | "reserved"

// Each network is parsed when first checked, not at import: every process that loads the tools
// would pay for parsing them, and most never fetch.
const network = (cidr: string) => {
  let parsed: IpNetwork.IpNetwork | undefined
  return () => parsed ??= IpNetwork.fromStringUnsafe(cidr)
}

const range = (cidr: string, kind: AddressKind) => ({ network: network(cidr), kind })

// Most specific first: the first range that contains an address names its kind.
const IPV4 = [
  range("0.0.0.0/8", "unspecified"),
  range("10.0.0.0/8", "private"),
  range("100.64.0.0/10", "shared (carrier-grade NAT)"),
  range("127.0.0.0/8", "loopback"),
  range("169.254.0.0/16", "link-local"),
  range("172.16.0.0/12", "private"),
  range("192.0.0.0/24", "reserved"),
  range("192.0.2.0/24", "reserved"),
  range("192.168.0.0/16", "private"),
  range("198.18.0.0/15", "reserved"),
  range("198.51.100.0/24", "reserved"),
  range("203.0.113.0/24", "reserved"),
  range("224.0.0.0/4", "multicast"),
  range("240.0.0.0/4", "reserved")
]

const IPV6 = [
  range("::/128", "unspecified"),
  range("::1/128", "loopback"),
  // IPv4-compatible addresses (deprecated) and the rest of ::/96.
  range("::/96", "reserved"),
  range("100::/64", "reserved"),
  range("2001:db8::/32", "reserved"),
  range("fc00::/7", "private"),
  range("fe80::/10", "link-local"),
  // Site-local, deprecated but still routed inside some networks.
  range("fec0::/10", "private"),
  range("ff00::/8", "multicast")
]

const NAT64 = network("64:ff9b::/96")
const SIX_TO_FOUR = network("2002::/16")

const ipv4At = (octets: ReadonlyArray<number>, start: number) =>
  NetAddress.ipv4FromBytesUnsafe(Uint8Array.from(octets.slice(start, start + 4)))

/** The IPv4 address an IPv6 address carries, for the forms that route to it. */
const embeddedIpv4 = (address: NetAddress.Ipv6Address): NetAddress.Ipv4Address | undefined => {
  const mapped = NetAddress.fromIpv4Mapped(address)
  if (Option.isSome(mapped)) return mapped.value
  const octets = NetAddress.ipv6ToOctets(address)
  if (IpNetwork.contains(NAT64(), address)) return ipv4At(octets, 12)
  if (IpNetwork.contains(SIX_TO_FOUR(), address)) return ipv4At(octets, 2)
  return undefined
}

const kindOf = (address: NetAddress.IpAddress): AddressKind | undefined => {
  if (address._tag === "Ipv6Address") {
    const inner = embeddedIpv4(address)
    if (inner !== undefined) return kindOf(inner)
  }
  const table = address._tag === "Ipv4Address" ? IPV4 : IPV6
  return table.find((r) => IpNetwork.contains(r.network(), address))?.kind
}

/**
 * The kind of a refused address (`127.0.0.1` → `loopback`), or undefined for a public one. A
 * string that is not an IP address is refused as `reserved`: nothing should connect to it.
 */
export const classify = (ip: string): AddressKind | undefined => {
  // A zone (fe80::1%eth0) does not change the address's kind.
  const parsed = NetAddress.ipFromString(ip.replace(/%.*$/, ""))
  return parsed._tag === "Failure" ? "reserved" : kindOf(parsed.success)
}

/** A connection refused because its address is not public (allowed only with allowPrivateNetwork). */
export class BlockedAddressError extends Schema.TaggedError<BlockedAddressError>()("BlockedAddressError", {
  /** The host name of the URL (an IP literal for a literal URL). */
  host: Schema.String,
  /** The address the connection would have used. */
  address: Schema.String,
  kind: Schema.String
}) {
  override get message() {
    const article = /^[aeiou]/.test(this.kind) ? "an" : "a"
    const what = this.host === this.address
      ? `${this.address} is ${article} ${this.kind} address`
      : `${this.host} resolves to ${this.address}, ${article} ${this.kind} address`
    return `Refused to connect: ${what}. Private, link-local and loopback addresses are refused ` +
      `unless webfetch.allowPrivateNetwork is set in agent-tools.json.`
  }
}

/** The error for connecting `host` at `address`, or undefined when the address is public. */
export const refusal = (host: string, address: string): BlockedAddressError | undefined => {
  const kind = classify(address)
  return kind === undefined ? undefined : new BlockedAddressError({ host: host.replace(/^\[|\]$/g, ""), address, kind })
}
