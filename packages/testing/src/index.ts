export * as MemoryFileSystem from "./MemoryFileSystem.ts"
export * as FakeSpawner from "./FakeSpawner.ts"
export * as ScriptedPermission from "./ScriptedPermission.ts"
export * as Fixtures from "./Fixtures.ts"
