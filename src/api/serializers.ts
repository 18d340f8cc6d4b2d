import { isDeepStrictEqual } from "node:util";
import type { FastifySerializerCompiler } from "fastify/types/schema.js";
import fastJson from "fast-json-stringify";
import { serializerCompiler as zodChecked } from "fastify-type-provider-zod";
import { z } from "zod";

type Compiler = FastifySerializerCompiler<z.ZodType | { properties: z.ZodType }>;

const zodOf = (schema: z.ZodType | { properties: z.ZodType }) => (schema instanceof z.ZodType ? schema : schema.properties);

/**
 * Answers written by fast-json-stringify, compiled once per route and status from the route's own zod schema (as
 * JSON Schema, the output side): no zod parse of every answer. What the schema does not name is left out, as zod's
 * parse leaves it out.
 */
export const fastSerializerCompiler: Compiler = ({ schema }) =>
  fastJson(z.toJSONSchema(zodOf(schema), { io: "output", target: "draft-7", unrepresentable: "any" }) as never) as (data: unknown) => string;

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
