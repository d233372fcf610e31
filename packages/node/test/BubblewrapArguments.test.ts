/** The bwrap argv a policy becomes: mount order, the private tmp, the skeleton, network flags. No bwrap needed. */
import { assert, describe, it } from "@effect/vitest"
import type { Sandbox } from "@agent-tools/core"
import { Bubblewrap } from "@agent-tools/node"

describe("bwrapArguments", () => {
  const policy: Sandbox.Policy = { root: "/tmp/p/ws", cwd: "/tmp/p/ws/sub", writable: [], readable: [], outside: "hidden" }
  const system: ReadonlyArray<Bubblewrap.SystemEntry> = [
    { _tag: "symlink", path: "/bin", target: "usr/bin" },
    { _tag: "bind", path: "/usr" },
    { _tag: "bind", path: "/tmp/p/ws/node_modules/.bin" }
  ]
  const tmp = { target: "/tmp", size: 1024 }
  const args = (over: Partial<Parameters<typeof Bubblewrap.bwrapArguments>[0]> = {}) =>
    Bubblewrap.bwrapArguments({ policy, network: "allow", system, extraWritable: [], extraReadable: [], tmp, ...over }).join(" ")

  it("parents before children, the private tmp before what lies under it, the skeleton read-only", () => {
    assert.strictEqual(
      args({ policy: { ...policy, readable: ["/tmp/p"], writable: ["/srv/out"] }, extraReadable: ["/opt/sdk"] }),
      "--die-with-parent --new-session --cap-drop ALL --unshare-user --disable-userns --unshare-pid --unshare-ipc --unshare-uts " +
        "--symlink usr/bin /bin --ro-bind-try /usr /usr --size 1024 --tmpfs /tmp --ro-bind-try /opt/sdk /opt/sdk " +
        "--ro-bind-try /tmp/p /tmp/p --bind-try /srv/out /srv/out --bind-try /tmp/p/ws /tmp/p/ws " +
        "--dev /dev --proc /proc --remount-ro / --chdir /tmp/p/ws/sub"
    )
  })

  it("the user's config directory stays read-only wherever a writable mount shows it, and hidden otherwise", () => {
    const config = "/home/u/.config/agent-tools"
    const writable = args({ policy: { ...policy, outside: "writable" }, tmp: undefined, readOnly: [config] })
    assert.isTrue(writable.indexOf(`--ro-bind-try ${config} ${config}`) > writable.indexOf("--bind-try / /"))
    const approved = args({ policy: { ...policy, writable: ["/home/u"] }, readOnly: [config] })
    assert.isTrue(approved.indexOf(`--ro-bind-try ${config} ${config}`) > approved.indexOf("--bind-try /home/u /home/u"))
    assert.notInclude(args({ readOnly: [config] }), config)
  })

  it("every network but allow unshares the network", () => {
    assert.include(args({ network: "proxy" }), "--unshare-net")
    assert.include(args({ network: "deny" }), "--unshare-net")
    assert.notInclude(args({ network: "allow" }), "--unshare-net")
  })

  it("a path both readable and writable is writable; network deny unshares the network", () => {
    const text = args({ policy: { ...policy, readable: ["/data"], writable: ["/data"] }, network: "deny" })
    assert.include(text, "--unshare-net")
    assert.include(text, "--bind-try /data /data")
    assert.notInclude(text, "--ro-bind-try /data")
  })

  it("a private home goes under the workspace's mount, the user's files into it", () => {
    const text = args({
      policy: { ...policy, root: "/home/u/proj", cwd: "/home/u/proj" },
      home: { target: "/home/u", files: ["/home/u/.gitconfig"], size: 2048 },
      system: []
    })
    assert.include(
      text,
      "--size 1024 --tmpfs /tmp --size 2048 --tmpfs /home/u " +
        "--ro-bind-try /home/u/.gitconfig /home/u/.gitconfig --bind-try /home/u/proj /home/u/proj"
    )
  })

  it("control files: after every writable mount, their parents pinned as mount points, then each read-only", () => {
    const text = args({
      policy: { ...policy, outside: "writable" },
      tmp: undefined,
      protected: ["/tmp/p/ws/.git/config", "/tmp/p/ws/.git/hooks", "/tmp/p/ws/.husky/_", "/tmp/p/ws/agent-tools.json", "/elsewhere/x"]
    })
    assert.include(
      text,
      "--bind-try / / --bind-try /tmp/p/ws /tmp/p/ws --bind /tmp/p/ws/.git /tmp/p/ws/.git --bind /tmp/p/ws/.husky /tmp/p/ws/.husky " +
        "--ro-bind /tmp/p/ws/agent-tools.json /tmp/p/ws/agent-tools.json --ro-bind /tmp/p/ws/.git/config /tmp/p/ws/.git/config " +
        "--ro-bind /tmp/p/ws/.git/hooks /tmp/p/ws/.git/hooks --ro-bind /tmp/p/ws/.husky/_ /tmp/p/ws/.husky/_ --dev /dev"
    )
    assert.notInclude(text, "/elsewhere")
  })

  it("outside writable: the whole file system as it is, no private tmp", () => {
    assert.strictEqual(
      args({ policy: { ...policy, outside: "writable" }, tmp: undefined }),
      "--die-with-parent --new-session --cap-drop ALL --unshare-user --disable-userns --unshare-pid --unshare-ipc --unshare-uts " +
        "--bind-try / / --bind-try /tmp/p/ws /tmp/p/ws --dev /dev --proc /proc --chdir /tmp/p/ws/sub"
    )
  })
})
