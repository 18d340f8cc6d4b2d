import { PROVIDER_URLS, type ProviderUrlName } from "../config/variables.js";
import { SIMULATOR_CRYPTO_PAY_TOKEN, SIMULATOR_RELOADLY_CREDENTIALS } from "../config/simulated-credentials.js";

/** Every provider's address set to one server: the simulator plays them all. */
export function allProvidersAt(url: string): Record<ProviderUrlName, string> {
  return Object.fromEntries(PROVIDER_URLS.map((name) => [name, url])) as Record<ProviderUrlName, string>;
}

/** The simulated Reloadly's hosts and public credentials for one environment. */
export function simulatedReloadly(simulatorUrl: string, environment: "sandbox" | "production") {
  const credentials = SIMULATOR_RELOADLY_CREDENTIALS[environment];
  return {
    RELOADLY_AUTH_URL: `${simulatorUrl}/reloadly/auth`,
    RELOADLY_GIFTCARDS_URL: `${simulatorUrl}/reloadly/${environment === "sandbox" ? "giftcards-sandbox" : "giftcards"}`,
    RELOADLY_CLIENT_ID: credentials.clientId,
    RELOADLY_CLIENT_SECRET: credentials.clientSecret,
  };
}

/**
 * What UPSTREAM=simulator fills into the environment once the simulator listens at `url`: every provider's address,
 * the simulated Reloadly and the simulated Crypto Pay, each only where the variable is unset (one provider can be real
 * while the others are simulated; the config then refuses what must not run beside it).
 */
export function simulatedEnv(url: string, env: Record<string, string | undefined>): Record<string, string> {
  const environment = env.RELOADLY_ENVIRONMENT === "production" ? "production" : "sandbox";
  const filled: Record<string, string> = {
    ...allProvidersAt(url),
    ...simulatedReloadly(url, environment),
    ...(env.CRYPTO_PAY_URL ? {} : { CRYPTO_PAY_URL: `${url}/cryptopay`, CRYPTO_PAY_TOKEN: SIMULATOR_CRYPTO_PAY_TOKEN }),
  };
  return Object.fromEntries(Object.entries(filled).filter(([name]) => !env[name]));
}
