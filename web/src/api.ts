// The Mini App's calls to the service: sign-in by init data, then the session as a bearer token.

export interface Session {
  token: string;
  expires_at: string;
  user: { telegram_id: string; username: string | null; language: string | null };
}

export interface Me {
  telegram_id: string;
  username: string | null;
  balance_usdt: number;
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

async function call<T>(path: string, init: RequestInit): Promise<T> {
  const response = await fetch(path, init);
  const body = (await response.json().catch(() => ({}))) as { error?: string };
  if (!response.ok) throw new ApiError(response.status, body.error ?? `HTTP ${response.status}`);
  return body as T;
}

export const signIn = (initData: string) =>
  call<Session>("/miniapp/session", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ init_data: initData }),
  });

export const me = (session: Session) => call<Me>("/miniapp/me", { headers: { authorization: `Bearer ${session.token}` } });
