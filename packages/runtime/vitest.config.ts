import { project } from "../../vitest.project.ts"

export default project("runtime")
