/** A Telegram update as the bot's durable inbox (src/db/bot-inbox.ts) hands it to the instance that claimed it. */
export interface InboxUpdate {
  updateId: number;
  chat: string;
  /** The update as Telegram sent it. */
  update: unknown;
  /** How many times it was claimed, this claim included: above 1, an instance handling it before stopped. */
  attempt: number;
  /** Its reply went out already (an earlier attempt's): it is not run again. */
  replied: boolean;
}
