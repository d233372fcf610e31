/**
 * `agent-tools.json`: the zod schema (the single source of the published JSON Schema), decoding
 * with errors that name the bad key, and loading one file or object (WorkspaceTrust combines the
 * user's and the workspace's).
 */
import * as Effect from "effect/Effect"
import * as FileSystem from "effect/FileSystem"
import * as Path from "effect/Path"
import * as Schema from "effect/Schema"
import * as z from "zod"
import { Jobs, SandboxEnv } from "@agent-tools/core"
import * as ConfigIssues from "./ConfigIssues.ts"
import { SandboxLimits } from "@agent-tools/node"

export const FILE_NAME = "agent-tools.json"

/**
 * The config file's zod schemas, built on first use: a process without a config file (the CLI's
 * one-shot call, an MCP server started bare) never builds them, and building them is a large part
 * of the package's start-up (zod makes an object for every node and modifier).
 */
const build = () => {
  const Action = z.enum(["allow", "ask", "deny"])
  const Direction = z.enum(["head", "tail", "head+tail"])

  const limits = {
    maxLines: z.number().int().min(1).optional().describe("Most lines of a tool output kept for the model."),
    maxBytes: z.number().int().min(1).optional().describe("Most bytes (UTF-8) of a tool output kept for the model."),
    direction: Direction.optional().describe(
      "Which part of a long output is kept: the first lines, the last lines, or both ends."
    ),
    strategy: z.enum(["lines", "bytes", "json"]).optional().describe(
      "How a long output is cut: lines (default) keeps whole lines; bytes fills the byte limit, cutting a line mid-way; " +
        "json keeps a JSON array or object valid JSON (arrays shortened with a count of the dropped items, every key kept " +
        "with shortened values; other text is cut by lines). bash output is streamed and always cut by lines."
    )
  }

  const PermissionConfig = z.union([
    Action,
    z.record(
      z.string(),
      z.union([Action, z.record(z.string(), Action).describe("Pattern → action; the last matching pattern wins.")])
    )
  ]).describe(
    "Permission rules, opencode-style: an action for everything, or per permission (read, edit, bash, " +
      "external_directory, …) an action or an object of pattern → action. Later rules win."
  )

  const TruncationConfig = z.strictObject({
    ...limits,
    tools: z.record(
      z.string(),
      z.strictObject({
        ...limits,
        disabled: z.boolean().optional().describe("Never truncate this tool's output.")
      })
    ).optional().describe("Per-tool overrides, by tool id.")
  }).describe("How long tool outputs are cut down; the full output is spilled to a file the model can page.")

  const S3SpillConfig = z.strictObject({
    bucket: z.string().min(1).describe("The bucket the spills go to; every host configured with the same bucket and prefix can page them."),
    prefix: z.string().optional().describe("Key prefix of the spills, e.g. \"agent-tools/spill/\" (a trailing / is added)."),
    endpoint: z.url({ protocol: /^https?$/, error: "an http:// or https:// URL" }).optional().describe(
      "The server of an S3-compatible store other than AWS (MinIO, R2, …)."
    ),
    region: z.string().min(1).optional().describe("The bucket's region (default: AWS_REGION, or us-east-1 with an endpoint)."),
    forcePathStyle: z.boolean().optional().describe("Address the bucket in the path instead of the host name (most non-AWS servers need it).")
  }).describe(
    "Spills in an S3-compatible bucket instead of files, as s3://bucket/key references that read and grep page on any host " +
      "with the same config. Credentials come from the AWS SDK's default chain (AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, " +
      "AWS_PROFILE, instance roles)."
  )

  const SpillConfig = z.strictObject({
    dir: z.string().min(1).optional().describe(
      "Where full outputs of truncated calls are kept (default: the user's data directory), each workspace's in a " +
        "private subdirectory (files 0600, directories 0700; the directory itself loses group and other access " +
        "unless it is a shared sticky one like /tmp). Relative to the workspace root; ~ is the home directory."
    ),
    retentionDays: z.number().positive().optional().describe("Spills older than this are deleted (default 7)."),
    maxBytes: z.number().int().min(1).optional().describe(
      "Most bytes one spill keeps (default 4 GiB); past it the spill ends with a [spill truncated at N bytes] line and " +
        "the truncation notice says only the first N bytes were saved."
    ),
    maxTotalBytes: z.number().int().min(1).optional().describe(
      "Most bytes all of a workspace's spills may take together (default 10 GiB); a new spill that would pass it " +
        "first deletes the oldest ones. Not enforced for spill.s3."
    ),
    s3: S3SpillConfig.optional()
  }).superRefine((config, ctx) => {
    if (config.dir !== undefined && config.s3 !== undefined) {
      ctx.addIssue({ code: "custom", path: ["dir"], input: config.dir, message: "no dir when s3 is set (spills then go to the bucket)" })
    }
  }).describe("The spill store for truncated outputs.")

  const ToolsConfig = z.strictObject({
    disabled: z.array(z.string()).optional().describe("Tool ids removed from the registry; an id that names no tool is an error."),
    directories: z.array(z.string()).optional().describe(
      "Directories of custom tools (*.ts, *.js), relative to the workspace root."
    ),
    plugins: z.array(z.string()).optional().describe("npm modules exporting a plugin, resolved from the workspace root.")
  }).describe("Which tools the registry offers.")

  const SandboxConfig = z.strictObject({
    mode: z.enum(["auto", "required", "off"]).optional().describe(
      "auto (default): run every bash command in a sandbox when one can run here (Linux with bubblewrap), " +
        "else without one and say so; required: refuse to run bash commands without a sandbox; off: no sandbox."
    ),
    network: z.enum(["proxy", "allow", "deny"]).optional().describe(
      "Network access of sandboxed commands. proxy (default): a network of their own, HTTP(S) through a proxy " +
        "that asks the network permission for each host (loopback, private and link-local addresses refused unless " +
        "a network rule names the host); allow: the host's network, unfiltered; deny: no network."
    ),
    extraWritable: z.array(z.string().min(1)).optional().describe(
      "Paths outside the workspace every sandboxed command may write. Relative to the workspace root; ~ is the home directory."
    ),
    extraReadable: z.array(z.string().min(1)).optional().describe(
      "Paths outside the workspace every sandboxed command may read. Relative to the workspace root; ~ is the home directory."
    ),
    protectedPaths: z.array(
      z.string().min(1).refine((p) => !/^([\\/]|[A-Za-z]:)/.test(p) && !p.split(/[\\/]/).includes(".."), {
        message: "a path inside the workspace, relative to its root"
      })
    ).optional().describe(
      "Control files protected besides the defaults (.git/config, .git/config.worktree, .git/commondir, .git/hooks, " +
        "the directory core.hooksPath names, agent-tools.json, .agent-tools/), relative to the workspace root: read-only " +
        "inside the sandbox when they exist, and a change by write, edit, multiedit or apply_patch is always asked, " +
        "even when edit is allowed (a deny rule still denies)."
    ),
    env: z.array(z.string().regex(SandboxEnv.NAME, "an environment variable name (letters, digits, _)")).optional().describe(
      `Names of environment variables bash commands see besides ${SandboxEnv.PASSED.filter((n) => !n.startsWith("LC_")).join(", ")}, LC_* ` +
        "(sandboxed or not); every other variable of the agent's environment (tokens, API keys) stays out."
    ),
    maxProcesses: z.number().int().positive().optional().describe(
      `The most processes a sandboxed command may run at once (default ${SandboxLimits.DEFAULT_MAX_PROCESSES}; a pids cgroup, where one can be made).`
    ),
    tmpMaxBytes: z.number().int().positive().optional().describe(
      "The size of a sandboxed command's private temp directory, and of its private home, each, in bytes " +
        `(default ${SandboxLimits.DEFAULT_TMP_MAX_BYTES}, ${SandboxLimits.DEFAULT_TMP_MAX_BYTES / 1024 / 1024} MiB; memory-backed, gone when the command ends).`
    )
  }).describe(
    "The kernel sandbox around bash commands: the workspace is writable, system directories are read-only, " +
      "other outside paths are visible only when approved for the call, and every process ends with the call."
  )

  const ApplyPatchConfig = z.strictObject({
    mode: z.enum(["atomic", "sequential"]).optional().describe(
      "atomic (default): nothing is written unless every hunk applies, and a chunk whose lines occur more than " +
        "once without an @@ line is refused. sequential: codex's semantics (hunks before a failing one stay " +
        "applied, an unanchored chunk changes the first copy, an updated file always ends with a newline)."
    )
  }).describe("How the apply_patch tool applies a patch.")

  const SkillsConfig = z.strictObject({
    directories: z.array(z.string().min(1)).optional().describe(
      "Directories searched for skills (folders holding a SKILL.md with a name and a description in its front matter), " +
        "relative to the workspace root; ~ is the home directory. Default: .agent-tools/skills, .agents/skills, .claude/skills."
    )
  }).describe("Where the skill tool finds skills.")

  const ExperimentalConfig = z.strictObject({
    batch_tool: z.boolean().optional().describe(
      "Offer the batch tool, which runs up to 25 independent calls concurrently (default false)."
    ),
    lsp_tool: z.boolean().optional().describe(
      "Offer the lsp tool (goToDefinition, findReferences, hover, documentSymbol through the language servers); " +
        "needs lsp enabled (default false)."
    )
  }).describe("Features that may change.")

  const LspConfig = z.union([
    z.boolean(),
    z.strictObject({
      enabled: z.boolean().optional().describe("Run language servers (default true when this object is given)."),
      diagnosticsTimeout: z.number().int().min(0).max(60_000).optional().describe(
        "The longest a file change waits for the language server's diagnostics, in milliseconds (default 3000)."
      ),
      workspaceTypeScript: z.boolean().optional().describe(
        "Run the workspace's own TypeScript (node_modules/typescript) for the language server when it has one " +
          "(default false: the TypeScript agent-tools depends on). That file is the workspace's code, run on the host."
      )
    })
  ]).describe(
    "Language servers (typescript-language-server for .ts/.tsx/.js/.jsx/.mjs/.cjs), started per project on first use: " +
      "after write, edit, multiedit and apply_patch, the errors they report in the changed files (and in up to 5 other " +
      "files) are appended to the tool's output. true enables them with the defaults (default false)."
  )

  const WebFetchConfig = z.strictObject({
    allowPrivateNetwork: z.boolean().optional().describe(
      "Let webfetch connect to private, link-local and loopback addresses (default false: refused). The check is " +
        "on the address each connection uses, after DNS, so a public name resolving to 127.0.0.1 is refused too."
    )
  }).describe("The webfetch tool.")

  const WebSearchConfig = z.strictObject({
    enabled: z.boolean().optional().describe(
      "Offer the websearch and codesearch tools, backed by Exa (default false). Needs apiKey or apiKeyEnv."
    ),
    apiKey: z.string().min(1).optional().describe("The Exa API key. Prefer apiKeyEnv: a key in a file is easily committed."),
    apiKeyEnv: z.string().min(1).optional().describe(
      "The environment variable that holds the Exa API key (e.g. EXA_API_KEY); it must be set when search is enabled."
    ),
    endpoint: z.url({ protocol: /^https?$/, error: "an http:// or https:// URL" }).optional().describe("The Exa MCP endpoint (default https://mcp.exa.ai/mcp).")
  }).superRefine((config, ctx) => {
    if (config.enabled === true && config.apiKey === undefined && config.apiKeyEnv === undefined) {
      ctx.addIssue({ code: "custom", path: ["enabled"], input: config.enabled, message: "false unless apiKey or apiKeyEnv is set" })
    }
  }).describe("The websearch and codesearch tools (Exa search over its MCP endpoint).")

  const McpTimeout = z.union([
    z.number().int().min(1).describe("Milliseconds to start the server (spawn or connect, handshake, tools/list)."),
    z.strictObject({
      startup: z.number().int().min(1).optional().describe(
        "Milliseconds to start the server: spawn or connect, the handshake and tools/list (default 30000)."
      ),
      request: z.number().int().min(1).optional().describe(
        "Milliseconds each call may take, restarted by the call's progress notifications (default 300000); the call is " +
          "cancelled on the server when it runs out."
      )
    })
  ]).describe("Timeouts: a number bounds start-up; an object sets start-up and each call separately.")

  const mcpCommon = {
    enabled: z.boolean().optional().describe("false: keep the server configured but never start it (default true)."),
    timeout: McpTimeout.optional()
  }

  const McpServerConfig = z.discriminatedUnion("type", [
    z.strictObject({
      type: z.literal("local"),
      command: z.array(z.string().min(1)).min(1).describe("The program and its arguments, e.g. [\"npx\", \"-y\", \"some-mcp-server\"]."),
      environment: z.record(z.string(), z.string()).optional().describe("Variables added to the environment the server inherits."),
      cwd: z.string().min(1).optional().describe("The server's working directory, relative to the workspace root (default: the root)."),
      ...mcpCommon
    }).describe("A server this process starts and speaks to over stdio."),
    z.strictObject({
      type: z.literal("remote"),
      url: z.url({ protocol: /^https?$/, error: "an http:// or https:// URL" }).describe("The server's streamable HTTP endpoint."),
      headers: z.record(z.string(), z.string()).optional().describe("Sent with every request, e.g. Authorization."),
      ...mcpCommon
    }).describe("A server reached over streamable HTTP.")
  ], { error: "local | remote" })

  const McpConfig = z.record(z.string().min(1), McpServerConfig).describe(
    "MCP servers whose tools join the registry as <server>_<tool> (provider-safe, at most 64 characters), asked as " +
      "the permission of that name (\"myserver_*\": \"allow\") and truncated like every tool. A server starts when its " +
      "tools are first listed or called; one that fails is reported and left out, one that exits is restarted with back-off."
  )

  const JobsConfig = z.strictObject({
    maxJobs: z.number().int().min(1).max(256).optional().describe(
      `The most background jobs (bash run_in_background) one session may have running at once (default ${Jobs.defaults.maxJobs}); past it bash refuses to start another.`
    ),
    ringBytes: z.number().int().min(1024).max(256 * 1024 * 1024).optional().describe(
      `The recent output of a job kept in memory, in bytes (default ${Jobs.defaults.ringBytes}); all of it is in the job's spill file.`
    ),
    idleTimeout: z.number().int().min(1).optional().describe(
      "Kill a job that printed nothing for this many milliseconds (default: never). Its status then says idle-timeout."
    ),
    timeLimit: z.number().int().min(1).optional().describe(
      "Kill a job that has run for this many milliseconds (default: never). Its status then says time-limit."
    ),
    startYield: z.number().int().min(0).max(60_000).optional().describe(
      `How long bash with run_in_background waits for the job's first output or exit before it returns, in milliseconds (default ${Jobs.defaults.startYield}).`
    )
  }).describe(
    "Background jobs (bash run_in_background, bash_output, bash_kill): they belong to the session (the MCP connection, the library's " +
      "scope) and are killed with their whole process tree when it ends."
  )

  const ConfigSchema = z.strictObject({
    $schema: z.string().optional().describe("The JSON Schema of this file, for editors."),
    permission: PermissionConfig.optional(),
    truncation: TruncationConfig.optional(),
    spill: SpillConfig.optional(),
    tools: ToolsConfig.optional(),
    sandbox: SandboxConfig.optional(),
    jobs: JobsConfig.optional(),
    apply_patch: ApplyPatchConfig.optional(),
    skills: SkillsConfig.optional(),
    experimental: ExperimentalConfig.optional(),
    lsp: LspConfig.optional(),
    webfetch: WebFetchConfig.optional(),
    websearch: WebSearchConfig.optional(),
    mcp: McpConfig.optional()
  }).meta({
    title: "agent-tools configuration",
    description: "An agent-tools.json file: the user's (in the user's config directory) or a workspace's (applied in full once the user trusts the folder)."
  })
  return { ConfigSchema, S3SpillConfig }
}

let built: ReturnType<typeof build> | undefined
const schemas = () => built ??= build()

/** The config file's schema (zod), built on the first call. */
export const schema = (): ConfigSchema => schemas().ConfigSchema
export type ConfigSchema = ReturnType<typeof build>["ConfigSchema"]

export type AgentConfig = z.output<ConfigSchema>
/** The `spill.s3` settings. */
export type S3Spill = z.output<ReturnType<typeof build>["S3SpillConfig"]>
/** What `layer` accepts as `config`: the file's content as an object. */
export type Input = z.input<ConfigSchema>

/** The JSON Schema published as `agent-tools.schema.json`. */
export const jsonSchema = (): Record<string, unknown> => z.toJSONSchema(schema(), { io: "input" }) as Record<string, unknown>

/** The published schema file's exact text (a test keeps `packages/runtime/agent-tools.schema.json` equal to it). */
export const jsonSchemaText = (): string => `${JSON.stringify(jsonSchema(), null, 2)}\n`

export class ConfigError extends Schema.TaggedError<ConfigError>()("ConfigError", {
  /** The config file, when the config came from one. */
  file: Schema.optional(Schema.String),
  problems: Schema.Array(Schema.Struct({ path: Schema.String, reason: Schema.String }))
}) {
  override get message() {
    const prefix = this.file === undefined ? "" : `${this.file}: `
    return this.problems.map((p) => `${prefix}${p.path === "" ? "" : `${p.path}: `}${p.reason}`).join("\n")
  }
}

const fail = (file: string | undefined, path: string, reason: string) =>
  new ConfigError({ ...(file === undefined ? {} : { file }), problems: [{ path, reason }] })

// zod's object shapes, walked through optional wrappers and unions (`true` or an object), to list
// the allowed keys of an object. A discriminated union's options are objects of different keys:
// which one applies depends on the value, so none is listed.
const unwrap = (schema: z.ZodType): z.ZodType =>
  schema instanceof z.ZodOptional
    ? unwrap(schema.unwrap() as z.ZodType)
    : schema instanceof z.ZodUnion && !(schema instanceof z.ZodDiscriminatedUnion)
    ? (schema.options as ReadonlyArray<z.ZodType>).map(unwrap).find((o) => o instanceof z.ZodObject) ?? schema
    : schema

const knownKeys = (path: ReadonlyArray<PropertyKey>): ReadonlyArray<string> | undefined => {
  let node: z.ZodType = schema()
  for (const key of path) {
    const current = unwrap(node)
    if (current instanceof z.ZodObject) node = (current.shape as Record<string, z.ZodType>)[String(key)] ?? z.never()
    else if (current instanceof z.ZodRecord) node = current.valueType as z.ZodType
    else return undefined
  }
  const target = unwrap(node)
  return target instanceof z.ZodObject ? Object.keys(target.shape).filter((k) => k !== "$schema") : undefined
}

/** Validates a config object; every bad key is named. */
export const decode = Effect.fn("AgentConfig.decode")(function*(input: unknown, file?: string | undefined) {
  const parsed = schema().safeParse(input, { reportInput: true })
  if (parsed.success) return parsed.data
  return yield* new ConfigError({
    ...(file === undefined ? {} : { file }),
    problems: [...ConfigIssues.problems(parsed.error, knownKeys)]
  })
})

/** Parses and validates the text of a config file. */
export const decodeText = Effect.fn("AgentConfig.decodeText")(function*(text: string, file: string) {
  const json = yield* Effect.try({
    try: (): unknown => JSON.parse(text),
    catch: (cause) => fail(file, "", `invalid JSON: ${cause instanceof Error ? cause.message : String(cause)}`)
  })
  return yield* decode(json, file)
})

export interface Loaded {
  readonly config: AgentConfig
  /** The file the config came from; undefined for an object or when there is no file. */
  readonly file: string | undefined
}

/**
 * The config for a workspace: `config` as an object, or the file it names (relative to `cwd`),
 * or else `agent-tools.json` in `cwd` when it exists, or else the empty config.
 */
export const load = Effect.fn("AgentConfig.load")(function*(options: {
  readonly cwd: string
  readonly config?: Input | string | undefined
}) {
  const fs = yield* FileSystem.FileSystem
  const path = yield* Path.Path
  const { config } = options
  if (config !== undefined && typeof config !== "string") {
    return { config: yield* decode(config), file: undefined } satisfies Loaded
  }
  const explicit = config !== undefined
  const file = path.resolve(options.cwd, config ?? FILE_NAME)
  const text = yield* fs.readFileString(file).pipe(
    Effect.map((text): string | undefined => text),
    Effect.catchTag("PlatformError", (e) =>
      e.reason._tag === "NotFound" && !explicit
        ? Effect.succeed(undefined)
        : Effect.fail(fail(file, "", e.reason._tag === "NotFound" ? "config file not found" : `cannot read: ${e.message}`)))
  )
  if (text === undefined) return { config: {}, file: undefined } satisfies Loaded
  return { config: yield* decodeText(text, file), file } satisfies Loaded
})
