import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { CONFIG_DOC_PATH, configDoc } from "../scripts/config-doc.js";

const ROOT = resolve(import.meta.dirname, "..");

/** README.md, CHANGELOG.md and every markdown file under docs/. */
function documents(): string[] {
  const found = ["README.md", "CHANGELOG.md"].map((name) => join(ROOT, name)).filter(existsSync);
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith(".md")) found.push(path);
    }
  };
  walk(join(ROOT, "docs"));
  return found;
}

/** Relative targets of markdown links and of HTML src/href attributes, without their #anchor. */
function relativeLinks(text: string): string[] {
  const withoutCode = text.replace(/```[\s\S]*?```/g, "").replace(/`[^`\n]*`/g, "");
  const targets = [...withoutCode.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g), ...withoutCode.matchAll(/\b(?:src|href)="([^"]+)"/g)].map((m) => m[1]);
  return targets.filter((t) => !/^[a-z][a-z0-9+.-]*:/i.test(t) && !t.startsWith("#")).map((t) => decodeURI(t.split("#")[0]));
}

describe("the documentation", () => {
  it("has docs/configuration.md exactly as npm run docs:config writes it from the config schema", () => {
    expect(readFileSync(CONFIG_DOC_PATH, "utf8"), "run npm run docs:config and commit docs/configuration.md").toBe(configDoc());
  });

  it("links only to files that exist", () => {
    const broken: string[] = [];
    const docs = documents();
    expect(docs.length).toBeGreaterThan(5);
    for (const doc of docs) {
      for (const target of relativeLinks(readFileSync(doc, "utf8"))) {
        if (!existsSync(resolve(dirname(doc), target))) broken.push(`${relative(ROOT, doc)} → ${target}`);
      }
    }
    expect(broken).toEqual([]);
  });

  it("keeps the README a front door of at most 200 lines", () => {
    expect(readFileSync(join(ROOT, "README.md"), "utf8").split("\n").length).toBeLessThanOrEqual(201);
  });
});
