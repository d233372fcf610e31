/** Background jobs on real processes: the `Jobs` service's layer, and what the job tools share. */
export { layer } from "./layer.ts"
export type { Options } from "./layer.ts"
export { asCommand, kindOf } from "./kind.ts"
export type { KindOf } from "./kind.ts"
export { inputCommand } from "./input.ts"
