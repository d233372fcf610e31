import { assert, describe, it } from "@effect/vitest"
import { Web } from "@agent-tools/tools"

describe("Web.classify", () => {
  it("names the kind of every refused IPv4 range", () => {
    const cases: ReadonlyArray<readonly [string, Web.AddressKind | undefined]> = [
      ["127.0.0.1", "loopback"],
      ["127.255.0.9", "loopback"],
      ["10.1.2.3", "private"],
      ["172.16.0.1", "private"],
      ["172.31.255.255", "private"],
      ["192.168.1.1", "private"],
      ["169.254.169.254", "link-local"],
      ["0.0.0.0", "unspecified"],
      ["100.64.0.1", "shared (carrier-grade NAT)"],
      ["224.0.0.1", "multicast"],
      ["255.255.255.255", "reserved"],
      ["198.18.0.1", "reserved"],
      ["93.184.216.34", undefined],
      ["172.32.0.1", undefined],
      ["8.8.8.8", undefined]
    ]
    for (const [ip, kind] of cases) assert.strictEqual(Web.classify(ip), kind, ip)
  })

  it("judges IPv6, and IPv6 forms carrying IPv4 by the IPv4 address", () => {
    const cases: ReadonlyArray<readonly [string, Web.AddressKind | undefined]> = [
      ["::1", "loopback"],
      ["::", "unspecified"],
      ["fe80::1", "link-local"],
      ["fe80::1%eth0", "link-local"],
      ["fd12:3456::1", "private"],
      ["fc00::1", "private"],
      ["ff02::1", "multicast"],
      ["::ffff:127.0.0.1", "loopback"],
      ["::ffff:7f00:1", "loopback"],
      ["::ffff:10.0.0.1", "private"],
      ["::ffff:169.254.169.254", "link-local"],
      ["64:ff9b::7f00:1", "loopback"],
      ["2002:c0a8:101::1", "private"],
      ["::127.0.0.1", "reserved"],
      ["::ffff:8.8.8.8", undefined],
      ["2606:4700:4700::1111", undefined]
    ]
    for (const [ip, kind] of cases) assert.strictEqual(Web.classify(ip), kind, ip)
  })

  it("refuses what is not an IP address", () => {
    assert.strictEqual(Web.classify("localhost"), "reserved")
  })
})

describe("Web.refusal", () => {
  it("says which host resolved to which address, and how to allow it", () => {
    assert.strictEqual(
      Web.refusal("localhost", "127.0.0.1")?.message,
      "Refused to connect: localhost resolves to 127.0.0.1, a loopback address. Private, link-local and loopback " +
        "addresses are refused unless webfetch.allowPrivateNetwork is set in agent-tools.json."
    )
    assert.strictEqual(
      Web.refusal("[::1]", "::1")?.message,
      "Refused to connect: ::1 is a loopback address. Private, link-local and loopback " +
        "addresses are refused unless webfetch.allowPrivateNetwork is set in agent-tools.json."
    )
    assert.strictEqual(
      Web.refusal("169.254.169.254", "169.254.169.254")?.message.slice(0, 64),
      "Refused to connect: 169.254.169.254 is a link-local address. Pri"
    )
    assert.isUndefined(Web.refusal("example.com", "93.184.216.34"))
  })
})
