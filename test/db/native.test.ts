import { describe, expect, it } from "vitest";
import { mismatchLine } from "../../src/db/native.js";

// Node's own message for a native module built for another Node (as Node 20 prints it for a Node 24 module).
const nodeError = (built: number, required: number) =>
  new Error(
    `The module '/srv/partner/app/node_modules/better-sqlite3/build/Release/better_sqlite3.node'\nwas compiled against a different Node.js version using\nNODE_MODULE_VERSION ${built}. This version of Node.js requires\nNODE_MODULE_VERSION ${required}. Please try re-compiling or re-installing\nthe module (for instance, using \`npm rebuild\` or \`npm install\`).`,
  );

describe("better-sqlite3 built for another Node", () => {
  it("names both Nodes in one line, the module versions mapped to majors, an unknown one shown as its number", () => {
    expect(mismatchLine(nodeError(137, 115), "v20.20.2", "115")).toBe(
      'better-sqlite3 was built for Node 24 (module version 137) but this is Node v20.20.2 (module version 115): run it with Node 24, or rebuild it for this Node: npm rebuild better-sqlite3 (on Node 24 see docs/operations.md, "Node 24 in production")',
    );
    expect(mismatchLine(nodeError(127, 137), "v24.22.3", "137")).toMatch(
      /^better-sqlite3 was built for Node 22 \(module version 127\) but this is Node v24\.22\.3 \(module version 137\): run it with Node 22,/,
    );
    expect(mismatchLine(nodeError(999, 115), "v20.20.2", "115")).toMatch(
      /^better-sqlite3 was built for module version 999 but this is Node v20\.20\.2 \(module version 115\): run it with the Node it was built with,/,
    );
    expect(mismatchLine(nodeError(999, 115))).not.toContain("\n");
  });

  it("leaves any other error alone", () => {
    expect(mismatchLine(new Error("SQLITE_CANTOPEN: unable to open database file"))).toBeNull();
    expect(mismatchLine("not an error")).toBeNull();
  });
});
