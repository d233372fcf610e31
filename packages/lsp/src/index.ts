export * as LspServers from "./Servers.ts"
export * as NodeLsp from "./NodeLsp.ts"
