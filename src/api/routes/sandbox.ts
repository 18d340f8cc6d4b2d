import type { Caller } from "../../core/accounts.js";
import type { Core } from "../../core/index.js";
import type { Micro } from "../../core/model/money.js";
import type { PurchaseOptions } from "../../core/purchase.js";

/**
 * Every sandbox answer (stars, premium, store): the product's sandbox view of the order a real purchase
 * would make, with the key's unchanged balance. A key with a webhook also hears of it as an `order.completed`
 * test event carrying the same answer, so a receiver can be built without spending.
 */
export async function answerSandbox<A extends object>(
  core: Core,
  caller: Caller,
  options: PurchaseOptions,
  view: (context: { idempotencyKey: string | null; now: Date }, balanceMicro: Micro) => A,
): Promise<A> {
  // Nothing was charged: the account as read for this request shows the balance.
  const balance = await core.accounts.availableTo(caller);
  const answer = view({ idempotencyKey: options.idempotencyKey ?? null, now: core.clock.now() }, balance);
  await core.webhooks.testEvent(caller, answer);
  return answer;
}
