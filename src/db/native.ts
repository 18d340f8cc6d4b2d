import SQLite from "better-sqlite3";

// better-sqlite3 loads its native module at the first `new Database()`. Built for another Node, that throws a
// five-line message and a stack (the hourly backup run by the system's Node 20 against a Node 24 install did, every
// hour); this turns it into one line naming both Nodes and what to do.

/** The Node major of each NODE_MODULE_VERSION (process.versions.modules) a module may have been built for. */
const NODE_OF_MODULE_VERSION: Record<string, number> = { 108: 18, 111: 19, 115: 20, 120: 21, 127: 22, 131: 23, 137: 24, 141: 25 };

/** The driver's native module does not fit this Node: its message is the whole story, so it is its stack too. */
class NativeModuleMismatch extends Error {
  constructor(message: string) {
    super(message);
    this.name = "NativeModuleMismatch";
    // Every entry prints an unexpected error's stack; this one's stack would only repeat Node's module loader.
    this.stack = message;
  }
}

/** The one line for Node's "compiled against a different Node.js version" error, or null for any other error. */
export function mismatchLine(error: unknown, version = process.version, modules = process.versions.modules): string | null {
  const found = /NODE_MODULE_VERSION (\d+)\.\s+This version of Node\.js requires\s+NODE_MODULE_VERSION (\d+)/.exec(String((error as Error)?.message));
  if (!found) return null;
  const built = found[1];
  const builtNode = NODE_OF_MODULE_VERSION[built];
  const builtFor = builtNode ? `Node ${builtNode} (module version ${built})` : `module version ${built}`;
  return (
    `better-sqlite3 was built for ${builtFor} but this is Node ${version} (module version ${modules}): ` +
    `run it with ${builtNode ? `Node ${builtNode}` : "the Node it was built with"}, or rebuild it for this Node: npm rebuild better-sqlite3 ` +
    `(on Node 24 see docs/operations.md, "Node 24 in production")`
  );
}

let loaded = false;

/** Loads the driver's native module once, before a file is opened; throws NativeModuleMismatch when it is another Node's. */
export function loadSqliteDriver(): typeof SQLite {
  if (loaded) return SQLite;
  try {
    new SQLite(":memory:").close();
  } catch (error) {
    const line = mismatchLine(error);
    throw line ? new NativeModuleMismatch(line) : error;
  }
  loaded = true;
  return SQLite;
}
