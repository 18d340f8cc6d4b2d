import type { FastifyPluginCallback } from "fastify";
import fp from "fastify-plugin";
import { languageOf } from "../../core/accounts.js";
import { type DomainError, reasonIn, ruleIn } from "../../core/model/errors.js";
import { isMiniAppCaller } from "../caller.js";
import { errorHandler, type Localize, notFoundHandler } from "../errors.js";
import type { MiniAppOptions } from "../miniapp/options.js";

interface ErrorsOptions {
  /** With the Mini App: a refusal in the bot's words, in the user's language. */
  refusal?: MiniAppOptions["refusal"];
}

/**
 * The Mini App's user reads refusals in their language (the bot's words for the same refusal); a bad input with no
 * reason keeps the core's message, which names the field (the bot's words for it are generic). Nor is an
 * "unauthorized" worded by the bot ("send /start"): a signed-in user meets it only at the key's fresh sign-in,
 * whose own message says what to do.
 */
const localized = (error: DomainError) =>
  Boolean(reasonIn(error.details) || ruleIn(error.details) || (error.code !== "invalid_input" && error.code !== "unauthorized"));

function localizer(refusal: MiniAppOptions["refusal"]): Localize {
  return (request, error) =>
    request.caller && isMiniAppCaller(request.caller) && localized(error) ? refusal(languageOf(request.caller.account), error.refusal) : null;
}

/** Every error and every unknown path answered as the contract's error bodies (src/api/errors.ts), for every route. */
const errorsPlugin: FastifyPluginCallback<ErrorsOptions> = (app, { refusal }, done) => {
  app.setErrorHandler(errorHandler(refusal ? localizer(refusal) : null));
  app.setNotFoundHandler(notFoundHandler);
  done();
};

export const errors = fp(errorsPlugin, { name: "errors", fastify: "5.x" });
