import htm from "htm";
import { h, render } from "preact";
import { useEffect, useState } from "preact/hooks";
import { ApiError, type Me, me, signIn } from "./api.js";
import { applyTheme, readLaunch } from "./launch.js";
import { type Language, texts } from "./texts.js";

const html = htm.bind(h);

type State = { kind: "loading" } | { kind: "ready"; me: Me } | { kind: "refused"; message: string };

function App({ initData, language }: { initData: string | null; language: Language }) {
  const t = texts[language];
  const [state, setState] = useState<State>({ kind: "loading" });
  useEffect(() => {
    if (!initData) {
      setState({ kind: "refused", message: t.openFromBot });
      return;
    }
    signIn(initData)
      .then(me)
      .then((mine) => setState({ kind: "ready", me: mine }))
      .catch((error: unknown) => {
        // A refused sign-in in the user's language; a blocked account hears the service's reason (with the support contact).
        const message = !(error instanceof ApiError) ? t.offline : error.status === 401 ? t.signInRefused : error.message;
        setState({ kind: "refused", message });
      });
  }, [initData]);

  if (state.kind === "loading") return html`<p class="muted">${t.loading}</p>`;
  if (state.kind === "refused")
    return html`<section class="card" role="alert">
      <h1>${t.cannotOpen}</h1>
      <p>${state.message}</p>
    </section>`;
  return html`<section class="card">
    <h1>${t.hello}${state.me.username ? `, @${state.me.username}` : ""}</h1>
    <p class="balance" data-testid="balance">${t.balance}: <strong>${state.me.balance_usdt.toFixed(2)} USDT</strong></p>
  </section>`;
}

const launch = readLaunch(location.hash);
applyTheme(launch.theme, document.documentElement);
const language: Language = (() => {
  try {
    const user = JSON.parse(new URLSearchParams(launch.initData ?? "").get("user") ?? "{}") as { language_code?: string };
    return user.language_code?.startsWith("ru") ? "ru" : "en";
  } catch {
    return "en";
  }
})();
document.documentElement.lang = language;
render(html`<${App} initData=${launch.initData} language=${language} />`, document.getElementById("app")!);
