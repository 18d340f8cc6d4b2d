import type { Transformer } from "grammy";
import { maskErrorInPlace } from "../../observability/log.js";

/** A failed call's network error names the URL, token included: masked before anything can print it. */
export const maskCallErrors: Transformer = async (call, method, payload, signal) => {
  try {
    return await call(method, payload, signal);
  } catch (error) {
    throw maskErrorInPlace(error);
  }
};
