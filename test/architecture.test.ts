import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";

// The house rules of src/ (docs/architecture.md), checked on the source text: each kind of code has one home.

const SRC = join(import.meta.dirname, "..", "src");

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return filesUnder(path);
    return entry.name.endsWith(".ts") ? [path] : [];
  });
}

const sources = filesUnder(SRC).map((path) => ({ path: relative(SRC, path), text: readFileSync(path, "utf8") }));
const under = (folder: string) => sources.filter((file) => file.path.startsWith(`${folder}/`));
/** The relative module paths a file imports (static and dynamic). */
const importsOf = (text: string) => [...text.matchAll(/(?:from|import\()\s*["'](\.[^"']+)["']/g)].map((match) => match[1]);
const offenders = (files: typeof sources, pattern: RegExp) => files.filter((file) => pattern.test(file.text)).map((file) => file.path);

describe("the house", () => {
  it("keeps the rules free of SQL, engine checks and timers", () => {
    const core = under("core");
    expect(core.length).toBeGreaterThan(10);
    expect(offenders(core, /\b(selectFrom|insertInto|updateTable|deleteFrom|replaceInto)\(|\bsql`|\.transaction\(\)/)).toEqual([]);
    expect(offenders(core, /\bisPostgres\b|\bPostgresAdapter\b/)).toEqual([]);
    expect(offenders(core, /\b(setInterval|setTimeout)\(/)).toEqual([]);
  });

  it("speaks SQL and branches on the engine only in storage", () => {
    const outside = sources.filter((file) => !file.path.startsWith("db/"));
    expect(offenders(outside, /\b(selectFrom|insertInto|updateTable|deleteFrom)\(|\bsql`/)).toEqual([]);
    expect(offenders(outside, /\bisPostgres\(/)).toEqual([]);
  });

  it("keeps the core from knowing its faces, its jobs or the wire", () => {
    const reaching = under("core").filter((file) =>
      importsOf(file.text).some((path) => /(^|\/)(api|bot|cli|jobs|wire|emulator|simulator|observability)\//.test(path) || /root\.js$/.test(path)),
    );
    expect(reaching.map((file) => file.path)).toEqual([]);
  });

  it("keeps the faces off the tables: they go through the core", () => {
    const faces = [...under("api"), ...under("bot")];
    const reaching = faces.filter((file) => importsOf(file.text).some((path) => /\/db\//.test(path)));
    expect(reaching.map((file) => file.path)).toEqual([]);
  });

  it("has one composition root: only it (and the process entries) opens the service", () => {
    const opening = sources.filter((file) => /\bopen(Service|Core)\(/.test(file.text)).map((file) => file.path);
    expect(opening.sort()).toEqual(["cli/admin.ts", "emulator/chat.ts", "main.ts", "root.ts"].sort());
    const building = sources.filter((file) => /\bcreateCore\(/.test(file.text)).map((file) => file.path);
    expect(building.sort()).toEqual(["core/index.ts", "root.ts"].sort());
  });
});
