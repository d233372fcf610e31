// The test projects: one per package. Vitest 5 no longer reads this file by itself;
// vitest.config.ts imports it as data.
export default ["packages/*"]
