import { render } from "preact";
import { useEffect, useState } from "preact/hooks";
import { ApiError, client, type Me, type Session, signIn } from "./api.js";
import { applyTheme, readLaunch } from "./launch.js";
import { setNumberLocale } from "./money.js";
import { Admin } from "./screens/admin.js";
import { Buy } from "./screens/buy.js";
import { Home, Statement, TopUp } from "./screens/account.js";
import { OrderDetail, Orders } from "./screens/orders.js";
import { Partner } from "./screens/partner.js";
import { telegram } from "./telegram.js";
import { type Language, texts } from "./texts.js";
import { type Ctx, html, type Screen, Skeleton } from "./ui.js";

type State =
  | { kind: "loading" }
  | { kind: "confirm"; session: Session }
  | { kind: "ready"; api: ReturnType<typeof client>; me: Me }
  | { kind: "refused"; message: string };

/** How the init data names its user: their @username, else their name (what the confirmation asks about). */
function nameOf(initData: string, session: Session): string {
  if (session.user.username) return `@${session.user.username}`;
  try {
    const user = JSON.parse(new URLSearchParams(initData).get("user") ?? "{}") as { first_name?: string; last_name?: string };
    return [user.first_name, user.last_name].filter(Boolean).join(" ") || session.user.telegram_id;
  } catch {
    return session.user.telegram_id;
  }
}

function show(screen: Screen, ctx: Ctx) {
  switch (screen.name) {
    case "home":
      return html`<${Home} ctx=${ctx} />`;
    case "buy":
      return html`<${Buy}
        ctx=${ctx}
        product=${screen.product}
        preset=${screen.preset ?? {}}
        key=${`${screen.product}${JSON.stringify(screen.preset ?? {})}`}
      />`;
    case "orders":
      return html`<${Orders} ctx=${ctx} />`;
    case "order":
      return html`<${OrderDetail}
        ctx=${ctx}
        id=${screen.id}
        product=${screen.product}
        bought=${screen.bought ?? false}
        balanceRead=${screen.balanceRead ?? false}
        key=${screen.id}
      />`;
    case "statement":
      return html`<${Statement} ctx=${ctx} />`;
    case "topup":
      return html`<${TopUp} ctx=${ctx} />`;
    case "partner":
      return html`<${Partner} ctx=${ctx} />`;
    case "admin":
      return html`<${Admin} ctx=${ctx} />`;
  }
}

function App({ initData, initialLanguage }: { initData: string | null; initialLanguage: Language }) {
  const [state, setState] = useState<State>({ kind: "loading" });
  const [stack, setStack] = useState<Screen[]>([{ name: "home" }]);
  // The bot's language choice once signed in; Telegram's until then.
  const language: Language = state.kind === "ready" ? state.me.language : initialLanguage;
  const t = texts[language];
  // Before any screen renders a figure: amounts and counts read as this language writes numbers.
  setNumberLocale(language);
  useEffect(() => {
    document.documentElement.lang = language;
  }, [language]);

  useEffect(() => {
    telegram.ready();
    if (!initData) {
      setState({ kind: "refused", message: t.openFromBot });
      return;
    }
    signIn(initData)
      .then(async (session) => {
        // Outside Telegram the init data came in a link, maybe someone else's (login CSRF): the user first says
        // whether the account is theirs, before anything of it is read. Inside Telegram the client vouches for it.
        if (!telegram.inTelegram) setState({ kind: "confirm", session });
        else await open(session);
      })
      .catch(refuse);
  }, [initData]);

  async function open(session: Session) {
    const api = client(session);
    // The first screen's prices asked for beside who the user is, not after: one round trip fewer before the goods
    // show (the shop's own read of them finds this one in the catalogue cache).
    void api.cached("/v1/pricing");
    setState({ kind: "ready", api, me: await api.get<Me>("/miniapp/me") });
  }
  function refuse(error: unknown) {
    // A refused sign-in in the user's language; a blocked account hears the service's reason (with the support contact).
    const message = !(error instanceof ApiError) ? t.offline : error.status === 401 ? t.signInRefused : error.message;
    telegram.haptic("error");
    setState({ kind: "refused", message });
  }

  // Telegram's BackButton on every screen but the first.
  useEffect(() => {
    telegram.backButton(stack.length > 1);
  }, [stack.length]);
  const back = () => setStack((s) => (s.length > 1 ? s.slice(0, -1) : s));
  useEffect(() => telegram.onBack(back), []);

  // Signing in: the wallet's shape, not a line of text.
  if (state.kind === "loading") return html`<div class="wallet"><${Skeleton} rows=${3} label=${t.loading} /></div>`;
  if (state.kind === "confirm")
    return html`<section class="card" data-testid="whose">
      <h1>${t.whoseTitle}</h1>
      <p>${t.whoseAsk(nameOf(initData!, state.session))}</p>
      <div class="pair">
        <button type="button" class="primary" data-testid="whose-yes" onClick=${() => open(state.session).catch(refuse)}>${t.whoseYes}</button>
        <button type="button" class="secondary" data-testid="whose-no" onClick=${() => setState({ kind: "refused", message: t.whoseNo })}>
          ${t.whoseNot}
        </button>
      </div>
    </section>`;
  if (state.kind === "refused")
    return html`<section class="card" role="alert">
      <h1>${t.cannotOpen}</h1>
      <p data-testid="refused">${state.message}</p>
    </section>`;
  const ctx: Ctx = {
    api: state.api,
    t,
    me: state.me,
    language,
    initData: initData ?? "",
    async refresh() {
      const me = await state.api.get<Me>("/miniapp/me").catch(() => null);
      if (me) setState({ ...state, me });
      return me !== null;
    },
    go: (screen) => {
      setStack((s) => [...s, screen]);
      window.scrollTo(0, 0);
    },
    finish: (screen) => {
      setStack((s) => [s[0], screen]);
      window.scrollTo(0, 0);
    },
    back,
    home: () => {
      setStack((s) => [s[0]]);
      window.scrollTo(0, 0);
    },
  };
  const screen = stack[stack.length - 1];
  // Inside Telegram its own BackButton goes back; a browser gets the page's.
  const pageBack = stack.length > 1 && !telegram.inTelegram;
  return html`${pageBack && html`<button type="button" class="back" onClick=${ctx.back}>${t.back}</button>`} ${show(screen, ctx)}`;
}

const launch = readLaunch(location.hash);
// The page's colours and Telegram's MainButton's, from the launch's theme; night mode switched while the page is
// open: Telegram sends the whole new theme.
const follow = (theme: Record<string, string>) => {
  applyTheme(theme, document.documentElement);
  telegram.theme(theme);
};
follow(launch.theme);
telegram.onTheme(follow);
telegram.followSafeAreas(document.documentElement);
const initialLanguage: Language = (() => {
  try {
    const user = JSON.parse(new URLSearchParams(launch.initData ?? "").get("user") ?? "{}") as { language_code?: string };
    return user.language_code?.startsWith("ru") ? "ru" : "en";
  } catch {
    return "en";
  }
})();
document.documentElement.lang = initialLanguage;
render(html`<${App} initData=${launch.initData} initialLanguage=${initialLanguage} />`, document.getElementById("app")!);
