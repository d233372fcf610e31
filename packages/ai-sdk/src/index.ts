/**
 * `@agent-tools/ai-sdk`: a tool registry as Vercel AI SDK tools (`AiSdk.toAiSdkTools`) and as an
 * effect/ai Toolkit with its handlers layer (`EffectAi`).
 */
export * as AiSdk from "./AiSdk.ts"
export * as Calls from "./Calls.ts"
export * as EffectAi from "./EffectAi.ts"
