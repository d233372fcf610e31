/**
 * The bash tool and its parts.
 *
 * - `BashTool`: the tool (`{command, timeout?, workdir?, description}`). Its layer needs
 *   `BashParser` (`parserLayer`), Workspace, Permission, Truncate, FileSystem and a
 *   ChildProcessSpawner.
 * - Options: `BashConfig`, a Context.Reference with `defaults` (timeouts, kill grace, shell
 *   override, home, platform, extra env, preview size). Change them with
 *   `configLayer({ maxTimeout: 1_800_000, shell: "/bin/zsh" })`. HOME, SHELL, PATH and COMSPEC are
 *   read through Effect `Config`, so a ConfigProvider sets them in tests.
 * - Analysis without running anything: `analyzeCommand(command, {cwd})` (commands, patterns,
 *   paths, unsupported parts) and `explain(command, {cwd, sessionID})` (plus the permission
 *   requests and the rule that decided each pattern); `format` renders an explanation.
 * - Where the analysis runs: `BashAnalyzer`, a Context.Reference (default: on the calling thread);
 *   `@agent-tools/node` sends big commands to a worker thread so a server keeps serving meanwhile.
 */
export { BashTool, parameters } from "./tool.ts"
export type { Parameters } from "./tool.ts"
export { analyze, analyzeBounded, BashAnalysisError, MAX_COMMAND_BYTES, MAX_NESTING, sizeError } from "./analysis.ts"
export { BashAnalyzer, inPlace as analyzeInPlace, layer as analyzerLayer } from "./analyzer.ts"
export type { Analyzer } from "./analyzer.ts"
export type { Analysis, Command, Options as AnalysisOptions, PathSource, PathUse } from "./analysis.ts"
export { analyzeCommand, directoryOf, explain, format } from "./explain.ts"
export type { AnalyzeOptions, ExplainOptions, Explanation, RequestExplanation } from "./explain.ts"
export { plan, relative, UNANALYSED, unanalysedPattern } from "./permissions.ts"
export { sandboxPolicy } from "./sandboxPolicy.ts"
export { allowsPrivate, networkAccess, PERMISSION as NETWORK_PERMISSION } from "./networkAccess.ts"
export { blockedNote, blockedPaths } from "./sandboxBlocked.ts"
export type { Blocked } from "./sandboxBlocked.ts"
export type { Plan, ResolvedPath } from "./permissions.ts"
export { BashParser, BashParserError, GrammarCompiler, type GrammarModule, layer as parserLayer } from "./parser.ts"
export type { SyncParser } from "./parser.ts"
export { BashConfig, defaults, environment, layer as configLayer, NON_INTERACTIVE_ENV } from "./config.ts"
export type { Environment, Options as ConfigOptions } from "./config.ts"
export { killPlan, killTree, name as shellName, select as selectShell, ShellNotFoundError } from "./shell.ts"
export type { KillPlan, Shell } from "./shell.ts"
export { run, SpawnError } from "./runner.ts"
export type { Preview, Reason, RunOptions, RunResult } from "./runner.ts"
export { ARITY, alwaysPattern, arity, hoist, prefix } from "./arity.ts"
export { expandBraces, MAX_BRACE_WORDS } from "./braces.ts"
export { hiddenCode, sedEffects } from "./code.ts"
export type { SedEffects } from "./code.ts"
