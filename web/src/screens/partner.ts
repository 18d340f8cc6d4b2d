import { useState } from "preact/hooks";
import { type Answer, ApiError } from "../api.js";
import { telegram } from "../telegram.js";
import { Choice, CopyButton, type Ctx, failure, Field, html, Outcome, useLoad } from "../ui.js";

/** The grace periods offered for the replaced key, in hours (the core's KEY_GRACE_CHOICES_HOURS). */
const GRACE_CHOICES = [0, 1, 24, 168];

/** A secret or key shown once, with a copy button. */
function Once({ ctx, label, value }: { ctx: Ctx; label: string; value: string }) {
  return html`<div class="once" data-testid="once">
    <p>${label}</p>
    <p><code>${value}</code> <${CopyButton} text=${value} t=${ctx.t} /></p>
    <p class="muted">${ctx.t.shownOnce}</p>
  </div>`;
}

/** "Your key starts with sj_Ab-c…": the prefix kept on one line (a key's hyphen is no place to break it). */
function KeyNow({ text, prefix }: { text: string; prefix: string }) {
  const at = text.indexOf(prefix);
  if (at < 0) return text;
  const rest = text.slice(at + prefix.length);
  return html`${text.slice(0, at)}<code class="nowrap">${prefix}${rest.startsWith("…") ? "…" : ""}</code
    >${rest.startsWith("…") ? rest.slice(1) : rest}`;
}

/** The partner's side: the API key (rotated after a confirmation, the new one shown once) and the webhook. */
export function Partner({ ctx }: { ctx: Ctx }) {
  const { t, api, me } = ctx;
  const [asking, setAsking] = useState(false);
  const [shown, setShown] = useState<{ label: string; value: string } | null>(null);
  const [note, setNote] = useState<{ kind: "ok" | "error"; text: string } | null>(null);
  const [keyNote, setKeyNote] = useState<{ kind: "ok" | "error"; text: string } | null>(null);
  const [grace, setGrace] = useState("0");
  const [version, setVersion] = useState(0);
  const keys = useLoad(() => api.get<Answer<"getKeys">>("/v1/keys"), [version]);
  const webhook = useLoad(() => api.get<Answer<"getWebhook">>("/v1/webhook"), [version]);
  const attempts = useLoad(() => api.get<Answer<"listWebhookAttempts">>("/v1/webhook/attempts?limit=5"), [version]);
  const [url, setUrl] = useState("");

  async function act(run: () => Promise<void>) {
    setNote(null);
    try {
      await run();
      setVersion((v) => v + 1);
    } catch (error) {
      telegram.haptic("error");
      setNote({ kind: "error", text: failure(t, error) });
    }
  }
  async function rotateKey() {
    setAsking(false);
    setKeyNote(null);
    try {
      const issued = await api.rotateKey(ctx.initData, Number(grace));
      setShown({ label: t.newKey, value: issued.key });
      telegram.haptic("success");
      setVersion((v) => v + 1);
      await ctx.refresh();
    } catch (error) {
      telegram.haptic("error");
      // The sign-in data is too old for a key (or the session ended): only opening the shop again helps.
      setKeyNote({ kind: "error", text: error instanceof ApiError && error.status === 401 ? t.keyNeedsFreshOpen : failure(t, error) });
    }
  }
  async function endGrace() {
    setKeyNote(null);
    try {
      await api.delete<Answer<"endKeyGrace">>("/v1/keys/previous");
      setKeyNote({ kind: "ok", text: t.graceEnded });
      setVersion((v) => v + 1);
    } catch (error) {
      telegram.haptic("error");
      setKeyNote({ kind: "error", text: failure(t, error) });
    }
  }
  const setWebhook = () =>
    act(async () => {
      const set = await api.post<Answer<"setWebhook">>("/v1/webhook", { url: url.trim() });
      if (set.secret) setShown({ label: t.signingSecret, value: set.secret });
      setNote({ kind: "ok", text: t.webhookSaved });
    });
  const ping = () =>
    act(async () => {
      const answer = await api.post<Answer<"pingWebhook">>("/v1/webhook/ping");
      setNote(
        answer.delivered
          ? { kind: "ok", text: t.pingOk(answer.status_code ?? 0, Math.round(answer.duration_ms)) }
          : { kind: "error", text: t.pingFailed(answer.error ?? `HTTP ${answer.status_code}`) },
      );
    });
  const rotateSecret = () =>
    act(async () => {
      const rotated = await api.post<Answer<"rotateWebhookSecret">>("/v1/webhook/secret");
      setShown({ label: t.signingSecret, value: rotated.secret });
    });

  const current = webhook.kind === "ok" ? webhook.value.webhook : null;
  return html`<section class="card">
      <h1>${t.apiKey}</h1>
      <p data-testid="key-now">${me.key_prefix ? html`<${KeyNow} text=${t.keyNow(me.key_prefix)} prefix=${me.key_prefix} />` : t.noKey}</p>
      ${
        asking
          ? html`<p>${t.rotateAsk}</p>
              <${Choice}
                label=${t.graceLabel}
                name="grace"
                value=${grace}
                options=${GRACE_CHOICES.map((hours) => [String(hours), t.graceChoices[hours]!] as [string, string])}
                onChange=${setGrace}
              />
              <button type="button" class="danger" data-testid="rotate-yes" onClick=${rotateKey}>${t.rotateYes}</button>
              <button type="button" class="secondary" onClick=${() => setAsking(false)}>${t.keepKey}</button>`
          : html`<button type="button" data-testid="rotate" onClick=${() => setAsking(true)}>${me.key_prefix ? t.rotateKey : t.issueKey}</button>`
      }
      ${
        keys.kind === "ok" && keys.value.previous_keys.length
          ? html`<div data-testid="previous-keys">
              ${keys.value.previous_keys.map(
                (key) =>
                  html`<p key=${key.key_prefix}>${t.previousKeyUntil(key.key_prefix, new Date(key.expires_at).toLocaleString(ctx.language))}</p>`,
              )}
              <button type="button" class="danger" data-testid="end-grace" onClick=${endGrace}>${t.endGrace}</button>
            </div>`
          : null
      }
      <p class="muted">${t.keyFreshRule}</p>
      ${keyNote && html`<${Outcome} kind=${keyNote.kind} text=${keyNote.text} testId="key-note" />`}
    </section>
    ${shown && html`<section class="card"><${Once} ctx=${ctx} label=${shown.label} value=${shown.value} /></section>`}
    <section class="card">
      <h2>${t.webhook}</h2>
      ${
        current
          ? html`<p data-testid="webhook">${current.url}</p>
              <p class="muted">
                ${current.enabled ? (current.retry_at ? t.webhookBackingOff(current.retry_at) : t.webhookOn(current.pending_events)) : t.webhookOff(current.disabled_reason ?? "")}
              </p>`
          : html`<p class="muted">${t.noWebhook}</p>`
      }
      <${Field} label=${t.webhookUrl} name="webhook_url" type="url" value=${url} onInput=${setUrl} placeholder="https://" />
      <button type="button" disabled=${!url.trim()} onClick=${setWebhook}>${t.saveWebhook}</button>
      ${
        current &&
        html`<div class="pair">
          <button type="button" class="secondary" data-testid="ping" onClick=${ping}>${t.ping}</button>
          <button type="button" class="secondary" onClick=${rotateSecret}>${t.rotateSecret}</button>
        </div>`
      }
      ${note && html`<${Outcome} kind=${note.kind} text=${note.text} testId="webhook-note" />`}
      ${
        attempts.kind === "ok" && attempts.value.attempts.length
          ? html`<h2>${t.attempts}</h2>
              <ul class="list">
                ${attempts.value.attempts.map(
                  (a) =>
                    html`<li>
                      ${`${new Date(a.attempted_at).toLocaleString(ctx.language)} · ${a.event_type} · ${a.succeeded ? a.status_code : (a.error ?? a.status_code)}`}
                    </li>`,
                )}
              </ul>`
          : null
      }
    </section>`;
}
