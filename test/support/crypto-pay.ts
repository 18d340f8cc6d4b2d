import { request } from "undici";
import type { Harness } from "./harness.js";

/** A control call on the harness's simulator (pay, expire, garble an invoice; point its webhook); throws unless 200. */
export async function simControl(on: Harness, path: string, body: object = {}) {
  const response = await request(`${on.simulatorUrl}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const answer = (await response.body.json()) as any;
  if (response.statusCode !== 200) throw new Error(`${path}: HTTP ${response.statusCode} ${JSON.stringify(answer)}`);
  return answer;
}

/** A top-up as its key reads it. */
export const topupOf = async (on: Harness, key: string, id: number) => (await on.call("GET", `/v1/topups/${id}`, { key })).body.topup;
