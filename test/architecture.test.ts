import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

// The house rules of src/ (docs/architecture.md), checked on the import graph TypeScript itself reads: a type-only
// import, a re-export and a dynamic import are edges like any other, so a renamed helper or an `import type` cannot
// slip past a rule. The few checks of words left are about what a module does (SQL, timers), not what it imports.

const SRC = join(import.meta.dirname, "..", "src");

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return filesUnder(path);
    return entry.name.endsWith(".ts") ? [path] : [];
  });
}

const sources = filesUnder(SRC).map((path) => ({ path: relative(SRC, path), text: readFileSync(path, "utf8") }));
const textOf = new Map(sources.map((file) => [file.path, file.text]));

/** A relative specifier as Node resolves the compiled module: `./x.js` is `x.ts`, a folder is its `index.ts`. */
function resolveSpecifier(from: string, specifier: string): string | undefined {
  const base = resolve(SRC, dirname(from), specifier);
  const candidates = [base.replace(/\.js$/, ".ts"), `${base}.ts`, join(base, "index.ts")];
  const found = candidates.find((candidate) => candidate.endsWith(".ts") && existsSync(candidate));
  return found && relative(SRC, found);
}

/** Every module of src/ and the modules of src/ it imports: static, type-only, re-exported and dynamic. */
const unresolved: string[] = [];
/** The packages each module imports (by the same reading). */
const packages = new Map<string, string[]>();
const graph = new Map(
  sources.map(({ path, text }) => {
    const specifiers = ts.preProcessFile(text, true, true).importedFiles.map((file) => file.fileName);
    packages.set(
      path,
      specifiers.filter((specifier) => !specifier.startsWith(".")),
    );
    const targets = specifiers
      .filter((specifier) => specifier.startsWith("."))
      .flatMap((specifier) => {
        const target = resolveSpecifier(path, specifier);
        if (!target) unresolved.push(`${path} -> ${specifier}`);
        // Beyond src (the migrations beside it) is not a module of the service.
        return target && !target.startsWith("..") ? [target] : [];
      });
    return [path, [...new Set(targets)]] as const;
  }),
);

const inside = (folder: string) => (path: string) => path.startsWith(`${folder}/`);
/** The edges from modules `from` selects to modules `to` selects, as `a.ts -> b.ts`. */
const edges = (from: (path: string) => boolean, to: (path: string) => boolean) =>
  [...graph].flatMap(([path, targets]) => (from(path) ? targets.filter(to).map((target) => `${path} -> ${target}`) : []));

/** The import cycles: each strongly connected set of modules (Tarjan), sorted, with a path round it. */
function cycles(): string[] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[] = [];
  const visit = (module: string) => {
    index.set(module, index.size);
    low.set(module, index.get(module)!);
    stack.push(module);
    onStack.add(module);
    for (const target of graph.get(module) ?? []) {
      if (!index.has(target)) {
        visit(target);
        low.set(module, Math.min(low.get(module)!, low.get(target)!));
      } else if (onStack.has(target)) low.set(module, Math.min(low.get(module)!, index.get(target)!));
    }
    if (low.get(module) !== index.get(module)) return;
    const members: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      members.push(member);
    } while (member !== module);
    if (members.length > 1 || graph.get(module)!.includes(module)) found.push(`${members.length} modules: ${members.sort().join(", ")}`);
  };
  for (const module of graph.keys()) if (!index.has(module)) visit(module);
  return found;
}

/** The names a module imports from another (import declarations and re-exports), parsed by TypeScript. */
function namesImported(path: string, from: string): string[] {
  const file = ts.createSourceFile(path, textOf.get(path)!, ts.ScriptTarget.Latest);
  return file.statements.flatMap((statement) => {
    if (!(ts.isImportDeclaration(statement) || ts.isExportDeclaration(statement)) || !statement.moduleSpecifier) return [];
    const specifier = (statement.moduleSpecifier as ts.StringLiteral).text;
    if (!specifier.startsWith(".") || resolveSpecifier(path, specifier) !== from) return [];
    const bindings = ts.isImportDeclaration(statement) ? statement.importClause?.namedBindings : statement.exportClause;
    if (!bindings || ts.isNamespaceImport(bindings) || ts.isNamespaceExport(bindings)) return ["*"];
    const elements: ReadonlyArray<ts.ImportSpecifier | ts.ExportSpecifier> = bindings.elements;
    return elements.map((element) => (element.propertyName ?? element.name).text);
  });
}

const offenders = (files: typeof sources, pattern: RegExp) => files.filter((file) => pattern.test(file.text)).map((file) => file.path);
const under = (folder: string) => sources.filter((file) => inside(folder)(file.path));

describe("the import graph", () => {
  it("is read whole: every relative import resolves, type-only and re-exports included", () => {
    expect(unresolved).toEqual([]);
    expect(graph.size).toBeGreaterThan(100);
    // `import type` (db/schema's LedgerKind) and `export ... from` are edges of the graph.
    expect(graph.get("db/schema.ts")).toContain("core/model/ledger.ts");
    expect(graph.get("core/model/products.ts")).toContain("core/model/order.ts");
  });

  it("has no cycle among the modules of src, type imports included", () => {
    expect(cycles()).toEqual([]);
  });

  it("keeps the domain vocabulary (core/model) a leaf: it imports nothing else of the project", () => {
    expect(edges(inside("core/model"), (target) => !inside("core/model")(target))).toEqual([]);
  });

  it("lets storage know of the core only its vocabulary: db imports core/model and nothing else of core", () => {
    expect(edges(inside("db"), (target) => inside("core")(target) && !inside("core/model")(target))).toEqual([]);
  });

  it("keeps the core from knowing its faces, its jobs, the wire, upstream or the root: it imports only core and db", () => {
    expect(edges(inside("core"), (target) => !inside("core")(target) && !inside("db")(target))).toEqual([]);
  });

  it("keeps the faces off the tables: api and bot go through the core", () => {
    expect(edges((path) => inside("api")(path) || inside("bot")(path), inside("db"))).toEqual([]);
  });

  it("branches on the engine only in storage: the core takes from db/database its types and ping, no engine helper", () => {
    const allowed = new Set(["Db", "Executor", "ping"]);
    const taken = [...graph]
      .filter(([path, targets]) => inside("core")(path) && targets.includes("db/database.ts"))
      .flatMap(([path]) => namesImported(path, "db/database.ts").map((name) => `${path}: ${name}`));
    expect(taken.length).toBeGreaterThan(0);
    expect(taken.filter((entry) => !allowed.has(entry.split(": ")[1]))).toEqual([]);
    const engineTest = [...graph]
      .filter(([path, targets]) => !inside("db")(path) && targets.includes("db/database.ts"))
      .filter(([path]) => namesImported(path, "db/database.ts").includes("isPostgres"))
      .map(([path]) => path);
    expect(engineTest).toEqual([]);
    // Nor does it reach the engines past db: no query builder, no driver.
    const drivers = [...packages]
      .filter(([path]) => inside("core")(path))
      .flatMap(([path, names]) => names.filter((name) => /^(kysely|pg|better-sqlite3)(\/|$)/.test(name)).map((name) => `${path}: ${name}`));
    expect(drivers).toEqual([]);
  });
});

describe("the deployment's map", () => {
  const isConfig = (path: string) => path === "config.ts" || inside("config")(path);

  it("keeps the production config off the simulator and the emulator: it imports neither", () => {
    expect(edges(isConfig, (target) => inside("simulator")(target) || inside("emulator")(target))).toEqual([]);
  });

  it("reads the environment's variable names only in src/config: everyone else reads the typed map", () => {
    const outside = sources.filter((file) => !isConfig(file.path));
    expect(offenders(outside, /\bconfig\.[A-Z][A-Z0-9]*_[A-Z0-9_]+\b/)).toEqual([]);
  });

  it("opens the product adapters in one place: only upstream/products.ts imports them", () => {
    const adapters = ["gateway", "store", "games", "giftcards", "gifts", "rates", "reloadly", "telegram"].map((name) => `upstream/${name}.ts`);
    expect(
      edges(
        (path) => path !== "upstream/products.ts",
        (target) => adapters.includes(target),
      ),
    ).toEqual([]);
  });

  it("decides taken, refused or unknown in one policy: no other upstream module reads a status or a transport error", () => {
    const judging = under("upstream").filter((file) => !["upstream/outcome.ts", "upstream/http.ts"].includes(file.path));
    expect(judging.length).toBeGreaterThan(5);
    expect(offenders(judging, /instanceof NotSentError|\b(status|code)\s*>=\s*[45]00\b|===\s*(408|409|429|503)\b/)).toEqual([]);
  });

  it("wires the jobs beside them: the root takes from src/jobs only their index, the polling role and the backlog", () => {
    expect(edges((path) => path === "root.ts", inside("jobs")).sort()).toEqual(
      ["root.ts -> jobs/index.ts", "root.ts -> jobs/monitor.ts", "root.ts -> jobs/role.ts"].sort(),
    );
  });

  it("reaches each engine through db/database.ts: the SQLite and PostgreSQL halves are imported by it alone", () => {
    expect(
      edges(
        (path) => path !== "db/database.ts",
        (target) => target === "db/sqlite.ts" || target === "db/postgres.ts",
      ),
    ).toEqual([]);
  });
});

describe("the house", () => {
  it("keeps the rules free of SQL and timers", () => {
    const core = under("core");
    expect(core.length).toBeGreaterThan(10);
    expect(offenders(core, /\b(selectFrom|insertInto|updateTable|deleteFrom|replaceInto)\(|\bsql`|\.transaction\(\)/)).toEqual([]);
    expect(offenders(core, /\b(setInterval|setTimeout)\(/)).toEqual([]);
  });

  it("speaks SQL only in storage", () => {
    const outside = sources.filter((file) => !file.path.startsWith("db/"));
    expect(offenders(outside, /\b(selectFrom|insertInto|updateTable|deleteFrom)\(|\bsql`/)).toEqual([]);
  });

  it("has one composition root: only it (and the process entries) opens the service", () => {
    const opening = sources.filter((file) => /\bopen(Service|Core)\(/.test(file.text)).map((file) => file.path);
    // The admin CLI's preflight command opens the core as the CLI's other commands do.
    expect(opening.sort()).toEqual(["cli/admin.ts", "cli/preflight.ts", "emulator/chat.ts", "main.ts", "root.ts"].sort());
    const building = sources.filter((file) => /\bcreateCore\(/.test(file.text)).map((file) => file.path);
    expect(building.sort()).toEqual(["core/index.ts", "root.ts"].sort());
  });
});
