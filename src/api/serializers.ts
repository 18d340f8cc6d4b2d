import { isDeepStrictEqual } from "node:util";
import type { FastifySerializerCompiler } from "fastify/types/schema.js";
import fastJson from "fast-json-stringify";
import { serializerCompiler as zodChecked } from "fastify-type-provider-zod";
import { z } from "zod";

type Compiler = FastifySerializerCompiler<z.ZodType | { properties: z.ZodType }>;

const zodOf = (schema: z.ZodType | { properties: z.ZodType }) => (schema instanceof z.ZodType ? schema : schema.properties);

/** Keywords whose value maps names to schemas (the names are not keywords). */
const NAMED = new Set(["properties", "definitions", "$defs", "patternProperties"]);
/** What a branch "X" of "X or null" may say for the pair to become one `type: [X, "null"]`. */
const PLAIN = new Set(["type", "description", "minimum", "maximum"]);

/**
 * The JSON Schema as a writer needs it. `format` and `pattern` only validate, and fast-json-stringify checks a
 * union's branches with ajv for every value: a date-time or null (`completed_at`) cost a date-time format check and
 * a long pattern per order of a page (the page of 20 was written in 34 µs, 10 µs without). "X or null" of a plain
 * X becomes the type pair, which needs no check at all.
 */
function forWriting(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(forWriting);
  if (node === null || typeof node !== "object") return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === "format" || key === "pattern") continue;
    out[key] = NAMED.has(key) ? Object.fromEntries(Object.entries(value as object).map(([name, sub]) => [name, forWriting(sub)])) : forWriting(value);
  }
  const branches = out.anyOf as Array<Record<string, unknown>> | undefined;
  const nullAt = branches?.length === 2 ? branches.findIndex((branch) => branch.type === "null" && Object.keys(branch).length === 1) : -1;
  const other = nullAt >= 0 ? branches![1 - nullAt]! : undefined;
  if (other && typeof other.type === "string" && Object.keys(other).every((key) => PLAIN.has(key))) {
    const { anyOf: _, ...rest } = out;
    return { ...rest, ...other, type: [other.type, "null"] };
  }
  return out;
}

/**
 * Answers written by fast-json-stringify, compiled once per route and status from the route's own zod schema (as
 * JSON Schema, the output side, made for writing): no zod parse of every answer. What the schema does not name is
 * left out, as zod's parse leaves it out.
 */
export const fastSerializerCompiler: Compiler = ({ schema }) =>
  fastJson(forWriting(z.toJSONSchema(zodOf(schema), { io: "output", target: "draft-7", unrepresentable: "any" })) as never) as (
    data: unknown,
  ) => string;

/**
 * The tests' serializer (RESPONSE_CHECK): every answer is checked against its schema by zod, as before, and the
 * production serializer must write the same JSON for it, so each API test also proves the fast path.
 */
export const checkedSerializerCompiler: Compiler = (route) => {
  const checked = zodChecked(route);
  const fast = fastSerializerCompiler(route);
  return (data) => {
    const answer = checked(data);
    const written = fast(data);
    if (written !== answer && !isDeepStrictEqual(JSON.parse(written), JSON.parse(answer))) {
      throw new Error(`the fast serializer of ${route.method} ${route.url} (${route.httpStatus}) wrote ${written}, the checked one ${answer}`);
    }
    return answer;
  };
};
