import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { telegramLanguage } from "../../src/emulator/language.js";

const dir = mkdtempSync(join(tmpdir(), "partner-chat-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("npm run chat's language", () => {
  it("is the locale's language as Telegram names it: C, POSIX or none is English", () => {
    expect(telegramLanguage({ LANG: "C.UTF-8" })).toBe("en");
    expect(telegramLanguage({ LANG: "C" })).toBe("en");
    expect(telegramLanguage({ LANG: "POSIX" })).toBe("en");
    expect(telegramLanguage({})).toBe("en");
    expect(telegramLanguage({ LANG: "ru_RU.UTF-8" })).toBe("ru");
    expect(telegramLanguage({ LANG: "en_US.UTF-8", LC_ALL: "ru_RU.UTF-8" })).toBe("ru");
    expect(telegramLanguage({ LANG: "ru_RU.UTF-8", LC_ALL: "", LC_MESSAGES: "C" })).toBe("en");
  });
});

describe("npm run chat", () => {
  it("prints its ports, keeps a typed number as text, taps a button by #number, and quits at once", async () => {
    const child = spawn(process.execPath, ["dist/src/emulator/chat.js"], {
      // A terminal in the C locale (a container's default): English, told to Telegram as "en".
      env: {
        ...process.env,
        DATABASE_URL: join(dir, "chat.db"),
        LOG_LEVEL: "silent",
        LANG: "C.UTF-8",
        LC_ALL: "",
        LC_MESSAGES: "",
        EMULATOR_PORT: "0",
        SIMULATOR_PORT: "0",
      },
      stdio: ["pipe", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (chunk) => (output += String(chunk)));
    const exited = new Promise<number | null>((resolve) => child.on("exit", resolve));
    const shown = async (text: string | RegExp, timeoutMs = 20_000) => {
      const deadline = Date.now() + timeoutMs;
      while (!(typeof text === "string" ? output.includes(text) : text.test(output))) {
        if (Date.now() > deadline) throw new Error(`not shown: ${text}\n${output.slice(-800)}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    };
    try {
      await shown("Type a message");
      // The Mini App's link carries the user as the chat plays them, language included.
      const initData = new URLSearchParams(/#(tgWebAppData=\S+)/.exec(output)![1]!).get("tgWebAppData")!;
      expect(JSON.parse(new URLSearchParams(initData).get("user")!).language_code).toBe("en");
      expect(output).toMatch(/Bot API emulator at http:\/\/127\.0\.0\.1:\d+/);
      expect(output).toMatch(/upstream simulator at http:\/\/127\.0\.0\.1:\d+/);
      child.stdin.write("/start\n");
      await shown("What would you like to do?");
      // The menu's buttons may come in the next chunk of output.
      await shown("[#1] ⭐ Stars");
      child.stdin.write("5\n");
      await shown("did not understand");
      // Button #1 of the first menu is still on screen under the newer one: tapping it starts the stars flow.
      child.stdin.write("#1\n");
      await shown("Your balance");
      // /pay is the chat's own: it pays the bot's latest Stars invoice, and says so when there is none.
      expect(output).toContain("/pay to pay the bot's latest invoice in Stars");
      child.stdin.write("/pay\n");
      await shown("(no invoice from the bot to pay)");
      const quitAt = Date.now();
      child.stdin.write("/quit\n");
      expect(await exited).toBe(0);
      expect(Date.now() - quitAt).toBeLessThan(3_000);
    } finally {
      child.kill("SIGKILL");
    }
  }, 60_000);
});
