/**
 * The language servers the Node layer knows: which files each one handles, how each file's
 * project root is found, and how the server is started. Each server's program ships as a
 * dependency of this package (from the npm registry), so nothing is downloaded at run time; the
 * cli package depends on them too, since its bundle resolves them from its own location.
 */
import { createRequire } from "node:module"
import * as Effect from "effect/Effect"
import * as FileSystem from "effect/FileSystem"
import * as Path from "effect/Path"

export interface Launch {
  readonly command: string
  readonly args: ReadonlyArray<string>
  readonly initializationOptions?: unknown
}

export interface Server {
  /** Names the server in messages and in the config's `lsp.servers` (e.g. "typescript"). */
  readonly id: string
  /** File extensions it handles, with the dot, mapped to the LSP language id. */
  readonly languages: Readonly<Record<string, string>>
  /** Files whose nearest directory marks a project root (else the workspace root is used). */
  readonly rootMarkers: ReadonlyArray<string>
  /** The command that starts the server on stdio for a project root; throws when its program is not installed. */
  readonly launch: (root: string) => Launch
}

const require = createRequire(import.meta.url)

export interface TypeScriptOptions {
  /**
   * Run the workspace's own TypeScript (its node_modules/typescript) when it has one. Off by
   * default: that file is the workspace's code, and a command run in the workspace can plant it,
   * so it would run on the host at the next edit of a .ts file.
   */
  readonly workspaceTypeScript?: boolean | undefined
}

/**
 * typescript-language-server on tsserver. By default the TypeScript this package depends on is
 * given as the server's `tsserver.path`, which the server prefers over the workspace's; with
 * `workspaceTypeScript` it is only the fallback (`fallbackPath`) for a workspace without its own.
 */
export const typescriptServer = (options: TypeScriptOptions = {}): Server => ({
  id: "typescript",
  languages: {
    ".ts": "typescript",
    ".mts": "typescript",
    ".cts": "typescript",
    ".tsx": "typescriptreact",
    ".js": "javascript",
    ".mjs": "javascript",
    ".cjs": "javascript",
    ".jsx": "javascriptreact"
  },
  rootMarkers: ["tsconfig.json", "jsconfig.json", "package.json"],
  launch: () => {
    const ours = require.resolve("typescript/lib/tsserver.js")
    return {
      command: process.execPath,
      args: [require.resolve("typescript-language-server/lib/cli.mjs"), "--stdio"],
      initializationOptions: {
        tsserver: options.workspaceTypeScript === true ? { fallbackPath: ours } : { path: ours },
        // No type acquisition: it would download @types packages in the background.
        disableAutomaticTypingAcquisition: true
      }
    }
  }
})

/** The TypeScript server on the TypeScript this package depends on. */
export const typescript: Server = typescriptServer()

export const all: ReadonlyArray<Server> = [typescript]

/** Every server, with the TypeScript choice of the config. */
export const servers = (options: TypeScriptOptions = {}): ReadonlyArray<Server> => [typescriptServer(options)]

/** The server for a file, by its extension. */
export const forFile = (servers: ReadonlyArray<Server>, file: string, path: Path.Path): Server | undefined => {
  const ext = path.extname(file).toLowerCase()
  return servers.find((s) => s.languages[ext] !== undefined)
}

/**
 * The file's project root: the nearest directory, from the file's up to the workspace root, that
 * holds one of the server's markers; the workspace root when none does.
 */
export const rootOf = Effect.fnUntraced(function*(server: Server, file: string, workspace: string) {
  const fs = yield* FileSystem.FileSystem
  const path = yield* Path.Path
  let dir = path.dirname(file)
  for (;;) {
    for (const marker of server.rootMarkers) {
      if (yield* fs.exists(path.join(dir, marker)).pipe(Effect.orElseSucceed(() => false))) return dir
    }
    if (dir === workspace) return workspace
    const parent = path.dirname(dir)
    if (parent === dir) return workspace
    dir = parent
  }
})
