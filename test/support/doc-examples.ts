// Reads a markdown document's examples as a reader sees them: its fenced code blocks, by section, the shell
// blocks cut into commands, each with the answer the text shows under it. test/docs/api-guide.test.ts runs them.

export interface CodeBlock {
  /** The `## ` heading the block is under ("" before the first). */
  section: string;
  lang: string;
  code: string;
  /** 1-based line of the fence, for messages. */
  line: number;
  /** What the line right above the fence says of it, `<!-- recipe: … -->` (test/docs/recipes.pg.test.ts). */
  marker?: string;
}

/** The fenced blocks, also those indented under a list item (their indent taken off). */
export function codeBlocks(markdown: string): CodeBlock[] {
  const blocks: CodeBlock[] = [];
  const lines = markdown.split("\n");
  let section = "";
  for (let i = 0; i < lines.length; i++) {
    const heading = /^## (.*)$/.exec(lines[i]);
    if (heading) section = heading[1].trim();
    const fence = /^( *)```(\w*)\s*$/.exec(lines[i]);
    if (!fence) continue;
    const [, indent, lang] = fence;
    const start = i;
    const marker = /^\s*<!-- recipe: (.*) -->\s*$/.exec(lines[i - 1] ?? "")?.[1];
    const body: string[] = [];
    for (i++; i < lines.length && !/^ *```\s*$/.test(lines[i]); i++)
      body.push(lines[i].startsWith(indent) ? lines[i].slice(indent.length) : lines[i]);
    blocks.push({ section, lang, code: body.join("\n"), line: start + 1, ...(marker ? { marker } : {}) });
  }
  return blocks;
}

/** One shell command (its `\` continuations joined) and what the text shows it answers. */
export interface ShellStep {
  command: string;
  /** The checked parts of the comment lines right under it: JSON bodies, status lines, headers, files' lines. */
  expected: string[];
  /** The status codes the shown answer names (` HTTP 502`, `HTTP/1.1 429`): a refusal the text expects. */
  statuses: number[];
}

/**
 * A comment line under a command is checked when it shows output: a JSON body (`{…`), a status line (`HTTP/…`), a
 * header (`name: value`, under a command that prints headers), a file's first line (`file.csv: …`), or a
 * continuation (indented) of one. Other comments
 * are prose. Two or more spaces and a parenthesis, or three spaces and words, end what is shown: the rest is prose.
 */
export function shellSteps(code: string): ShellStep[] {
  const steps: ShellStep[] = [];
  const lines = code.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (!line.trim() || line.trimStart().startsWith("#")) continue;
    let command = line;
    while (command.endsWith("\\") && i + 1 < lines.length) command = `${command.slice(0, -1)}${lines[++i].trimStart()}`;
    // A here-document's lines, to its delimiter, are the command's own.
    const delimiter = /(?<!<)<<(?!<)-?\s*'?(\w+)'?/.exec(command)?.[1];
    if (delimiter) while (i + 1 < lines.length && command.split("\n").at(-1)!.trim() !== delimiter) command += `\n${lines[++i]}`;
    const shown: string[] = [];
    let checking: "json" | "lines" | undefined;
    // `name: value` lines are headers only under a command that prints them.
    const headers = /\s(?:-D -|-i|-I|--include)(?:\s|$)/.test(command);
    for (; i + 1 < lines.length && lines[i + 1].startsWith("#"); i++) {
      const text = lines[i + 1].replace(/^# ?/, "");
      const part = text.trim();
      // A body broken over lines is one; a file's lines are each its own.
      if (/^\s/.test(text) && checking) {
        if (checking === "json") shown[shown.length - 1] += ` ${part}`;
        else shown.push(part);
        continue;
      }
      checking = part.startsWith("{")
        ? "json"
        : /^(?:HTTP\/|[\w-]+\.csv: )/.test(part) || (headers && /^[a-z0-9-]+: /i.test(part))
          ? "lines"
          : undefined;
      if (checking) shown.push(part.replace(/^[\w-]+\.csv: /, ""));
    }
    const expected = shown.flatMap((text) => {
      if (text.startsWith("{")) return [text.replace(/\s{2,}\(.*$/, "").replace(/\s{3,}\S.*$/, "")];
      return text.split(/\s{3,}/).filter((part) => !part.startsWith("("));
    });
    const statuses = expected.flatMap((text) => [...text.matchAll(/(?:\bHTTP|HTTP\/1\.1) ([1-5]\d\d)\b/g)].map((m) => Number(m[1])));
    steps.push({ command, expected, statuses });
  }
  return steps;
}

/**
 * The shown answer as a pattern over the real one: `…` stands for anything; a JSON body's pieces are joined as the
 * text breaks them over lines (a space there is not in the answer); every other character is itself.
 */
export function shownPattern(shown: string): RegExp {
  const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const pieces = shown.split("…").map((piece) => (shown.startsWith("{") ? escape(piece).replace(/([,{[:]) /g, "$1 ?") : escape(piece)));
  return new RegExp(pieces.join("[\\s\\S]*?"), shown.startsWith("{") ? "" : "im");
}
