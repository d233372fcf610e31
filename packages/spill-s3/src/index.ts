export * as S3SpillStorage from "./S3SpillStorage.ts"
export * as S3Reference from "./S3Reference.ts"
