import type { FastifyInstance } from "fastify";
import { BOT_USER, type ChatMessage, type EmulatorState, type Handler, type SentDocument, asMessage, fail } from "./state.js";

/** A multipart/form-data part: a field's text, or a file's name and bytes. */
type Part = { name: string; filename?: string; data: Buffer };

/**
 * Multipart/form-data as grammY sends it with a file (fields, then `attach://<id>` parts; the filename may be
 * unquoted). Enough for the Bot API's uploads, not a general parser.
 */
function parseMultipart(body: Buffer, contentType: string): Part[] {
  const boundary = /boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType);
  if (!boundary) throw new Error("multipart body without a boundary");
  const delimiter = Buffer.from(`--${boundary[1] ?? boundary[2]}`);
  const parts: Part[] = [];
  let at = body.indexOf(delimiter);
  while (at !== -1) {
    const start = at + delimiter.length;
    if (body.subarray(start, start + 2).toString() === "--") break;
    const next = body.indexOf(delimiter, start);
    if (next === -1) break;
    // Each part: CRLF, headers, a blank line, the data, CRLF before the next delimiter.
    const part = body.subarray(start + 2, next - 2);
    const split = part.indexOf("\r\n\r\n");
    const headers = part.subarray(0, split).toString();
    const disposition = /content-disposition:\s*form-data;\s*name="([^"]*)"(?:;\s*filename=(?:"([^"]*)"|([^;\r\n]*)))?/i.exec(headers);
    if (disposition) parts.push({ name: disposition[1], filename: disposition[2] ?? disposition[3], data: part.subarray(split + 4) });
    at = next;
  }
  return parts;
}

/** Where the multipart parser leaves a request's files, beside its fields. */
const FILES = Symbol("files");
/** A field that Telegram takes as JSON arrives as text in a multipart request. */
const jsonField = (value: unknown) => (typeof value === "string" ? JSON.parse(value) : value);

/**
 * Uploads (sendDocument with a file) come as multipart: fields become the payload, files ride along under their
 * part names for the `attach://` references.
 */
export function acceptUploads(app: FastifyInstance): void {
  app.addContentTypeParser("multipart/form-data", { parseAs: "buffer" }, (request, body, done) => {
    try {
      const payload: Record<string, unknown> = {};
      const files: Record<string, Part> = {};
      for (const part of parseMultipart(body as Buffer, String(request.headers["content-type"]))) {
        if (part.filename !== undefined) files[part.name] = part;
        else payload[part.name] = part.data.toString("utf8");
      }
      done(null, { ...payload, [FILES]: files });
    } catch (error) {
      done(error as Error, undefined);
    }
  });
}

/** sendDocument: a new upload (`attach://`) is kept under a new file id; a known file id is sent again. */
export function documentMethods(state: EmulatorState): Record<string, Handler> {
  return {
    sendDocument(p) {
      const c = state.chat(Number(p.chat_id));
      if (state.blocked.has(c.id)) throw fail(403, "Forbidden: bot was blocked by the user");
      const caption = p.caption === undefined ? "" : String(p.caption);
      if (caption.length > 1024) throw fail(400, "Bad Request: message caption is too long");
      const reference = typeof p.document === "string" ? p.document : "";
      let document: SentDocument | undefined;
      if (reference.startsWith("attach://")) {
        const file = (p[FILES as unknown as string] as Record<string, Part> | undefined)?.[reference.slice("attach://".length)];
        if (!file) throw fail(400, "Bad Request: file must be uploaded as multipart/form-data");
        if (file.data.length === 0) throw fail(400, "Bad Request: file must be non-empty");
        const file_id = `doc${state.documents.size + 1}`;
        document = { file_id, file_name: file.filename || "document", file_size: file.data.length, content: file.data.toString("base64") };
        state.documents.set(file_id, document);
      } else {
        document = state.documents.get(reference);
      }
      if (!document) throw fail(400, "Bad Request: wrong file identifier/HTTP URL specified");
      const m: ChatMessage = {
        message_id: c.messages.length + 1,
        from_bot: true,
        text: caption,
        document,
        reply_markup: p.reply_markup === undefined ? undefined : jsonField(p.reply_markup),
        protect_content: p.protect_content === undefined ? undefined : jsonField(p.protect_content),
        edits: 0,
      };
      c.messages.push(m);
      state.record(c);
      return asMessage(c, m, BOT_USER);
    },
  };
}
