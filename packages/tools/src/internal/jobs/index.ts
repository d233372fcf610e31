export { layer } from "./layer.ts"
export type { Options } from "./layer.ts"
