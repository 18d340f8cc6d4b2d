import { premiumFlow, starsFlow } from "./telegram.js";
import { gamesFlow } from "./games.js";
import { giftcardsFlow } from "./giftcards.js";
import { giftsFlow } from "./gifts.js";
import type { FlowFeature } from "./kit.js";
import { storeFlow } from "./store.js";

/** The purchase flows in menu order: each brings its conversation, command and menu button. */
export const FLOWS: readonly FlowFeature[] = [starsFlow, premiumFlow, storeFlow, gamesFlow, giftcardsFlow, giftsFlow];
