import type { Migration } from "kysely";
import * as initial from "./0001_initial.js";
import * as providerFields from "./0002_provider_fields.js";
import * as bot from "./0003_bot.js";
import * as balanceBound from "./0004_balance_bound.js";
import * as rateLimits from "./0005_rate_limits.js";
import * as webhooks from "./0006_webhooks.js";
import * as quotes from "./0007_quotes.js";
import * as ledgerPaging from "./0008_ledger_paging.js";
import * as operations from "./0009_operations.js";
import * as tenantBounds from "./0010_tenant_bounds.js";
import * as uniqueUsernames from "./0011_unique_usernames.js";
import * as health from "./0012_health.js";
import * as topups from "./0013_topups.js";
import * as sessionGeneration from "./0014_session_generation.js";
import * as topupSafety from "./0015_topup_safety.js";
import * as botInbox from "./0016_bot_inbox.js";
import * as telegramContacts from "./0017_telegram_contacts.js";
import * as orderDelivery from "./0018_order_delivery.js";
import * as starsIn from "./0019_stars_in.js";
import * as keyGrace from "./0020_key_grace.js";
import * as telegramLanguage from "./0021_telegram_language.js";

/** Every migration, in order. A new file is added here too: an explicit list works under tsx, vitest and a build alike. */
export const migrations: Record<string, Migration> = {
  "0001_initial": initial,
  "0002_provider_fields": providerFields,
  "0003_bot": bot,
  "0004_balance_bound": balanceBound,
  "0005_rate_limits": rateLimits,
  "0006_webhooks": webhooks,
  "0007_quotes": quotes,
  "0008_ledger_paging": ledgerPaging,
  "0009_operations": operations,
  "0010_tenant_bounds": tenantBounds,
  "0011_unique_usernames": uniqueUsernames,
  "0012_health": health,
  "0013_topups": topups,
  "0014_session_generation": sessionGeneration,
  "0015_topup_safety": topupSafety,
  "0016_bot_inbox": botInbox,
  "0017_telegram_contacts": telegramContacts,
  "0018_order_delivery": orderDelivery,
  "0019_stars_in": starsIn,
  "0020_key_grace": keyGrace,
  "0021_telegram_language": telegramLanguage,
};
