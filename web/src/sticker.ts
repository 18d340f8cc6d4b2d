import { useEffect, useRef, useState } from "preact/hooks";
import type { Ctx } from "./ui.js";
import { html } from "./ui.js";

// Gifts as their animated stickers: the API's Lottie (served gzip-compressed; the browser inflates it), drawn by
// lottie-web's light SVG player (no eval, so the CSP holds), loaded on first use outside the main bundle.

let player: Promise<typeof import("lottie-web/build/player/lottie_light").default> | null = null;
const loadPlayer = () => (player ??= import("lottie-web/build/player/lottie_light").then((module) => module.default));

export function Sticker({ ctx, giftId, fallback }: { ctx: Ctx; giftId: string; fallback: string }) {
  const box = useRef<HTMLDivElement>(null);
  const [failed, setFailed] = useState(false);
  useEffect(() => {
    let animation: { destroy(): void } | null = null;
    let live = true;
    Promise.all([ctx.api.get<object>(`/v1/gifts/${encodeURIComponent(giftId)}/sticker`), loadPlayer()]).then(
      ([animationData, lottie]) => {
        if (!live || !box.current) return;
        animation = lottie.loadAnimation({ container: box.current, renderer: "svg", loop: true, autoplay: true, animationData });
      },
      () => live && setFailed(true),
    );
    return () => {
      live = false;
      animation?.destroy();
    };
  }, [giftId]);
  return html`<div class="sticker" ref=${box} aria-hidden="true" data-testid="sticker">${failed ? fallback : null}</div>`;
}
