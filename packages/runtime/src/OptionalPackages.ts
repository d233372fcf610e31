/**
 * The packages the runtime loads only when the config asks for them: the MCP client
 * (`@agent-tools/mcp`, config `mcp`), the S3 spill store (`@agent-tools/spill-s3`, config
 * `spill.s3`) and the language-server client (`@agent-tools/lsp`, config `lsp`). They are optional
 * peer dependencies: a user who uses none of them installs none of them (no MCP SDK, no AWS SDK, no
 * TypeScript), and a process whose config asks for none never imports them. When the config asks
 * for one that cannot be loaded, the layer fails with `MissingPackageError` naming the package to add.
 *
 * The importers are a parameter (`Options.optionalPackages` of the layer) so a test can stand in
 * for a package that is not installed.
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"

/** One importer per optional package; each is Node's `import()` of that package by default. */
export interface Importers {
  readonly mcpClient: () => Promise<typeof import("@agent-tools/mcp/client")>
  readonly spillS3: () => Promise<typeof import("@agent-tools/spill-s3")>
  readonly lsp: () => Promise<typeof import("@agent-tools/lsp")>
}

/** The package each importer loads and the config key that asks for it. */
export const packages: { readonly [K in keyof Importers]: { readonly package: string; readonly key: string } } = {
  mcpClient: { package: "@agent-tools/mcp", key: "mcp" },
  spillS3: { package: "@agent-tools/spill-s3", key: "spill.s3" },
  lsp: { package: "@agent-tools/lsp", key: "lsp" }
}

export const importers: Importers = {
  mcpClient: () => import("@agent-tools/mcp/client"),
  spillS3: () => import("@agent-tools/spill-s3"),
  lsp: () => import("@agent-tools/lsp")
}

/** The config asks for a feature whose optional package could not be loaded. */
export class MissingPackageError extends Schema.TaggedError<MissingPackageError>()("MissingPackageError", {
  /** The npm package to add, e.g. `@agent-tools/spill-s3`. */
  package: Schema.String,
  /** The config key that asked for it, e.g. `spill.s3`. */
  key: Schema.String,
  /** Why it could not be loaded: `not installed`, or the import's own error. */
  reason: Schema.String
}) {
  override get message() {
    return `the config's \`${this.key}\` needs the package ${this.package} (${this.reason}); add it to the project: npm install ${this.package}`
  }
}

const reasonOf = (cause: unknown): string => {
  const code = typeof cause === "object" && cause !== null && "code" in cause ? cause.code : undefined
  if (code === "ERR_MODULE_NOT_FOUND" || code === "MODULE_NOT_FOUND") return "not installed"
  if (cause instanceof Error) return cause.message.split("\n")[0] ?? cause.name
  return String(cause)
}

/** Loads one optional package, or fails naming it and the config key that asked for it. */
export const load = <K extends keyof Importers>(
  from: Importers,
  name: K
): Effect.Effect<Awaited<ReturnType<Importers[K]>>, MissingPackageError> =>
  Effect.tryPromise({
    try: () => from[name]() as Promise<Awaited<ReturnType<Importers[K]>>>,
    catch: (cause) => new MissingPackageError({ ...packages[name], reason: reasonOf(cause) })
  }).pipe(Effect.withSpan("OptionalPackages.load", { attributes: { package: packages[name].package } }))
