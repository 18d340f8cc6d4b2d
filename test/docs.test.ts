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

/** Every .ts file under `dir`. */
function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith(".ts"))
    .map((entry) => join(entry.parentPath, entry.name));
}

const DECISIONS = join(ROOT, "docs", "decisions");
const RECORD_NAME = /^\d{4}-[a-z0-9]+(?:-[a-z0-9]+)*\.md$/;
const RECORD_LINK = /\[\d{4}\]\((\d{4}-[a-z0-9-]+\.md)\)/g;

type RecordHeader = { date?: string; status?: string; supersedes?: string };

/** The `Key: value` lines between a record's title and its first blank line; a value may run on over several lines. */
function recordHeader(text: string): RecordHeader {
  const block = text.split("\n\n")[1] ?? "";
  const header: Record<string, string> = {};
  let key: string | undefined;
  for (const line of block.split("\n")) {
    const m = /^([A-Z][a-z]+): (.*)$/.exec(line);
    if (m) header[(key = m[1].toLowerCase())] = m[2];
    else if (key) header[key] += ` ${line}`;
  }
  return header;
}

/** Every decision record but the index, by file name, with its header block. */
function decisionRecords(): { file: string; header: RecordHeader }[] {
  return readdirSync(DECISIONS)
    .filter((file) => file.endsWith(".md") && file !== "README.md")
    .map((file) => ({ file, header: recordHeader(readFileSync(join(DECISIONS, file), "utf8")) }));
}

function recordLinks(text: string): string[] {
  return [...text.matchAll(RECORD_LINK)].map((m) => m[1]);
}

/** What is wrong with one record's name and header, each problem naming the file. */
function decisionRecordProblems(file: string, { date, status }: RecordHeader): string[] {
  const problems: string[] = [];
  if (!RECORD_NAME.test(file)) problems.push(`${file}: not named NNNN-name.md`);
  if (!date || !/^\d{4}-\d{2}-\d{2}$/.test(date) || Number.isNaN(Date.parse(date))) problems.push(`${file}: no Date: YYYY-MM-DD line`);
  if (!status || !/^(?:accepted(?:; in part superseded by \[\d{4}\]\(.+)?|superseded by \[\d{4}\]\(.+)$/.test(status)) {
    problems.push(`${file}: no Status: accepted / superseded by [NNNN](NNNN-name.md) line`);
  }
  for (const target of recordLinks(status ?? "")) {
    if (target.slice(0, 4) <= file.slice(0, 4)) problems.push(`${file}: superseded by ${target}, which is not a later record`);
  }
  return problems;
}

/**
 * Paths docs/architecture.md names ahead of issue 45's reshaping (the lead's branch). Each must leave this list as
 * soon as it exists, so the map never names a file that is gone for good.
 */

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

  it("names in the architecture map only paths that exist", () => {
    const text = readFileSync(join(ROOT, "docs", "architecture.md"), "utf8");
    const named = [...new Set([...text.matchAll(/`((?:src|test|web|client|scripts|bench|migrations)\/[^`\s]*)`/g)].map((m) => m[1]))];
    expect(named.length).toBeGreaterThan(20);
    expect(named.filter((path) => !existsSync(join(ROOT, path)))).toEqual([]);
  });

  it("numbers and dates every decision record and gives it a status", () => {
    const records = decisionRecords().sort((a, b) => a.file.localeCompare(b.file));
    expect(records.length).toBeGreaterThan(5);
    const problems = records.flatMap(({ file, header }) => decisionRecordProblems(file, header));
    // Numbered in the order they were made: one record per number, and no record dated before an earlier number.
    records.forEach(({ file, header }, i) => {
      const before = records[i - 1];
      if (!before) return;
      if (before.file.slice(0, 4) === file.slice(0, 4)) problems.push(`${before.file} and ${file} share a number`);
      if (before.header.date && header.date && header.date < before.header.date) problems.push(`${file} is dated before ${before.file}`);
    });
    expect(problems).toEqual([]);
  });

  it("links a superseded decision record to the one that supersedes it, and back", () => {
    const records = new Map(decisionRecords().map((r) => [r.file, r]));
    const broken: string[] = [];
    for (const { file, header } of records.values()) {
      for (const target of recordLinks(header.status ?? "")) {
        const later = records.get(target);
        if (!later) broken.push(`${file}: superseded by ${target}, which is not a decision record`);
        else if (!recordLinks(later.header.supersedes ?? "").includes(file)) broken.push(`${target} does not say it supersedes ${file}`);
      }
      for (const target of recordLinks(header.supersedes ?? "")) {
        const earlier = records.get(target);
        if (!earlier) broken.push(`${file}: supersedes ${target}, which is not a decision record`);
        else if (!recordLinks(earlier.header.status ?? "").includes(file)) broken.push(`${target}'s status does not name ${file}`);
      }
    }
    expect(broken).toEqual([]);
  });

  it("ships the partner contract in docs/ and cites it there, never outside the repository", () => {
    const contract = join(ROOT, "docs", "partner-contract.md");
    expect(existsSync(contract), "docs/partner-contract.md: the binding contract").toBe(true);
    expect(readFileSync(contract, "utf8")).toMatch(/^# Partner Purchase API: Specification\n/);
    const outside: string[] = [];
    for (const file of [...documents(), ...sourceFiles(join(ROOT, "src"))]) {
      if (file === contract) continue;
      if (/shared\/spec\//.test(readFileSync(file, "utf8"))) outside.push(relative(ROOT, file));
    }
    expect(outside, "cite docs/partner-contract.md instead").toEqual([]);
    for (const doc of ["README.md", "docs/api-guide.md", "docs/decisions/0001-contract-readings.md"]) {
      expect(
        relativeLinks(readFileSync(join(ROOT, doc), "utf8")).some((t) => t.endsWith("partner-contract.md")),
        doc,
      ).toBe(true);
    }
  });

  it("keeps the README a front door of at most 200 lines", () => {
    expect(readFileSync(join(ROOT, "README.md"), "utf8").split("\n").length).toBeLessThanOrEqual(201);
  });
});
