import { insertAudit } from "../../db/accounts.js";
import { moveTopup, pendingTransfers, referenceKeyOf, sameReference, topupById } from "../../db/topups.js";
import { transaction } from "../../db/transaction.js";
import type { Account } from "../model/account.js";
import { invalid, notFound, unavailable } from "../model/errors.js";
import { formatUsdt, type Micro } from "../model/money.js";
import type { Topup } from "../model/topup.js";
import { type DecidingAdmin, checkAccount, checkTopupAmount, insertWithinBounds, nowIso, type TopupContext } from "./context.js";
import { credit } from "./credit.js";

export const REFERENCE_MAX = 200;

/** A reference reduced to its letters and digits: "Bank TX-7781" and "bank tx 7781" are the same transfer. */
const referenceKey = (reference: string) =>
  reference
    .normalize("NFKC")
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]/gu, "");

/** Why approving a transfer needs a second, confirmed step. */
type ConfirmReason = "above_threshold" | "reference_reused";

/** What the deciding administrator is shown of a transfer: other transfers with its reference, and why to confirm. */
export interface TransferReview {
  reused: Array<{ topup: Topup; telegramId: string | null }>;
  confirm: ConfirmReason[];
}

/** An administrator's decision on a pending transfer. */
export type TransferDecision = { approve: true; confirmed?: boolean } | { approve: false; reason: string };

/** A transfer the user states (an amount and a reference), for an administrator to approve. */
export async function requestTransfer(ctx: TopupContext, account: Account, amountMicro: Micro, reference: string): Promise<Topup> {
  const { limits } = ctx;
  checkAccount(account);
  if (!limits.transfers) throw unavailable("Transfer top-ups are not offered here");
  checkTopupAmount(limits, amountMicro);
  const text = reference.trim();
  const key = referenceKey(text);
  if (!text || text.length > REFERENCE_MAX || /\p{Cc}/u.test(text) || !key) {
    throw invalid(
      `reference must be 1 to ${REFERENCE_MAX} characters, with letters or digits: the transaction id or a note the administrator can check`,
    );
  }
  const topup = await insertWithinBounds(
    ctx,
    { accountId: account.id, method: "transfer", status: "pending", amountMicro, reference: { text, key } },
    { statuses: ["pending"], max: limits.pendingTransfersMax, what: "transfers waiting for a decision" },
  );
  for (const listener of ctx.listeners.requested) listener(topup, null);
  return topup;
}

/** The transfer's review: other transfers with its reference (any account) and why approving needs confirming. */
async function reviewOf(ctx: TopupContext, topup: Topup): Promise<TransferReview> {
  const key = await referenceKeyOf(ctx.db, topup.id);
  const reused = key ? await sameReference(ctx.db, { id: topup.id, referenceKey: key }) : [];
  const confirm: ConfirmReason[] = [];
  if (ctx.confirm.needed(topup.amountMicro)) confirm.push("above_threshold");
  if (reused.length) confirm.push("reference_reused");
  return { reused, confirm };
}

async function transferById(ctx: TopupContext, id: number): Promise<Topup> {
  const topup = await topupById(ctx.db, id);
  if (!topup || topup.method !== "transfer") throw notFound(`No transfer top-up ${id}`);
  return topup;
}

/** What the deciding administrator must see of a transfer (by id): reused references, and why to confirm. */
export async function reviewTransfer(ctx: TopupContext, id: number): Promise<{ topup: Topup; review: TransferReview }> {
  const topup = await transferById(ctx, id);
  return { topup, review: await reviewOf(ctx, topup) };
}

/** Transfers waiting for a decision, oldest first, with whose they are and their review (the admin desk). */
export async function pendingWithReviews(ctx: TopupContext, limit: number) {
  const pending = await pendingTransfers(ctx.db, limit);
  return Promise.all(pending.map(async (entry) => ({ ...entry, review: await reviewOf(ctx, entry.topup) })));
}

/**
 * An administrator's decision on a pending transfer; the first decision wins. Approve credits exactly the
 * amount asked, once, and needs `confirmed` when the amount is above ADMIN_CONFIRM_ABOVE_USDT or the reference
 * is another transfer's too; reject records the reason. `decided` is false when another decision came first.
 */
export async function decideTransfer(ctx: TopupContext, id: number, admin: DecidingAdmin, decision: TransferDecision) {
  const topup = await transferById(ctx, id);
  const decided = decision.approve ? await approve(ctx, topup, admin, decision.confirmed) : await reject(ctx, topup, admin, decision.reason);
  const now = (await topupById(ctx.db, id))!;
  if (decided) for (const listener of ctx.listeners.decided) listener(now, admin);
  return { decided, topup: now };
}

/** Credits the transfer, once its confirm rules are met; false when another decision came first. */
async function approve(ctx: TopupContext, topup: Topup, admin: DecidingAdmin, confirmed: boolean | undefined): Promise<boolean> {
  const { confirm, reused } = topup.status === "pending" ? await reviewOf(ctx, topup) : { confirm: [], reused: [] };
  if (confirm.length && !confirmed) {
    const why = [
      ...(confirm.includes("above_threshold") ? [`${formatUsdt(topup.amountMicro)} USDT is above ${formatUsdt(ctx.confirm.aboveMicro)}`] : []),
      ...(reused.length ? [`its reference is also on transfer ${reused.map((r) => `${r.topup.id} (${r.topup.status})`).join(", ")}`] : []),
    ];
    throw invalid(`Approving transfer ${topup.id} needs confirming: ${why.join("; ")}`, { rule: "confirm_needed", confirm });
  }
  const credited = await credit(ctx, topup, ["pending"], topup.amountMicro, {
    actor: `admin:${admin.telegramId}`,
    note: `Transfer top-up ${topup.id} approved`,
    decidedBy: admin.telegramId,
  });
  return credited !== null;
}

/** Rejects the transfer with the reason its user is told, audited; false when another decision came first. */
async function reject(ctx: TopupContext, topup: Topup, admin: DecidingAdmin, text: string): Promise<boolean> {
  const reason = text.trim().slice(0, REFERENCE_MAX);
  if (!reason) throw invalid("A rejection needs a reason the user is told");
  const when = nowIso(ctx);
  return transaction(ctx.db, async (trx) => {
    const moved = await moveTopup(trx, topup.id, ["pending"], "rejected", { decided_by: admin.telegramId, reason, at: when });
    if (moved)
      await insertAudit(trx, {
        actor: `admin:${admin.telegramId}`,
        action: "reject_transfer",
        accountId: topup.accountId,
        details: { topup_id: topup.id, reason },
        at: when,
      });
    return moved;
  });
}

/** Cancels the user's own pending transfer (its administrators' messages lose their buttons). */
export async function cancelTransfer(ctx: TopupContext, topup: Topup): Promise<Topup> {
  if (!(await moveTopup(ctx.db, topup.id, ["pending"], "cancelled", { at: nowIso(ctx) }))) {
    throw invalid(`Top-up ${topup.id} was decided meanwhile`);
  }
  const cancelled = (await topupById(ctx.db, topup.id))!;
  for (const listener of ctx.listeners.cancelled) listener(cancelled);
  return cancelled;
}
