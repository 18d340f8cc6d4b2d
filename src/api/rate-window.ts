/**
 * The per-key limit counts requests in windows of a minute (RATE_LIMIT_PER_MINUTE). Apart from the plugin so the
 * root can hand the window to the core without loading the API (the admin CLI opens the core alone).
 */
export const RATE_LIMIT_WINDOW_SECONDS = 60;
