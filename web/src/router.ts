import { type MouseEvent, useEffect, useState } from "react";

export const BASE = "/app";

/** The screens of the app, by path under /app/. */
export type Place =
  | { screen: "queues" }
  | { screen: "queue"; queueId: string; status?: string; page: number }
  /** Every document the person may read, across their queues. */
  | { screen: "documents"; status?: string; page: number }
  | { screen: "document"; documentId: string }
  /** The target of a mailed sign-in link (AUTH_APP_URL + /auth/magic-login?token=). */
  | { screen: "magic_login"; token: string }
  /** The targets of mailed password and invitation links (`/auth/change-password?token=`, `/auth/accept-invitation?token=`). */
  | { screen: "set_password"; token: string }
  | { screen: "accept_invitation"; token: string }
  | { screen: "not_found" };

export function placeOf(pathname: string, search = ""): Place {
  const path = pathname.startsWith(BASE) ? pathname.slice(BASE.length) : pathname;
  const segments = path.split("/").filter(Boolean).map(decodeURIComponent);
  const query = new URLSearchParams(search);
  if (segments.length === 0) return { screen: "queues" };
  if (segments[0] === "queues" && segments.length === 2) {
    const status = query.get("status") ?? undefined;
    const page = Math.max(1, Number(query.get("page")) || 1);
    return { screen: "queue", queueId: segments[1]!, page, ...(status ? { status } : {}) };
  }
  if (segments[0] === "documents" && segments.length === 2) return { screen: "document", documentId: segments[1]! };
  if (segments[0] === "documents" && segments.length === 1) {
    const status = query.get("status") ?? undefined;
    return { screen: "documents", page: Math.max(1, Number(query.get("page")) || 1), ...(status ? { status } : {}) };
  }
  if (segments[0] === "auth" && segments.length === 2) {
    const token = query.get("token") ?? "";
    if (segments[1] === "magic-login") return { screen: "magic_login", token };
    if (segments[1] === "change-password") return { screen: "set_password", token };
    if (segments[1] === "accept-invitation") return { screen: "accept_invitation", token };
  }
  return { screen: "not_found" };
}

export function hrefOf(place: Place): string {
  switch (place.screen) {
    case "queues":
    case "not_found":
      return `${BASE}/`;
    case "queue":
    case "documents": {
      const query = new URLSearchParams();
      if (place.status) query.set("status", place.status);
      if (place.page > 1) query.set("page", String(place.page));
      const search = query.toString();
      const path = place.screen === "queue" ? `/queues/${encodeURIComponent(place.queueId)}` : "/documents";
      return `${BASE}${path}${search ? `?${search}` : ""}`;
    }
    case "document":
      return `${BASE}/documents/${encodeURIComponent(place.documentId)}`;
    case "magic_login":
      return `${BASE}/auth/magic-login?token=${encodeURIComponent(place.token)}`;
    case "set_password":
      return `${BASE}/auth/change-password?token=${encodeURIComponent(place.token)}`;
    case "accept_invitation":
      return `${BASE}/auth/accept-invitation?token=${encodeURIComponent(place.token)}`;
  }
}

export function navigate(place: Place, replace = false): void {
  const href = hrefOf(place);
  if (replace) history.replaceState(null, "", href);
  else history.pushState(null, "", href);
  dispatchEvent(new PopStateEvent("popstate"));
}

/** The current place, following the history (back and forward too). */
export function usePlace(): Place {
  const [place, setPlace] = useState(() => placeOf(location.pathname, location.search));
  useEffect(() => {
    const update = () => setPlace(placeOf(location.pathname, location.search));
    addEventListener("popstate", update);
    return () => removeEventListener("popstate", update);
  }, []);
  return place;
}

/** A link that moves within the app without a reload; a modified click (new tab) is left to the browser. */
export function followLink(event: MouseEvent<HTMLAnchorElement>, place: Place): void {
  if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
  event.preventDefault();
  navigate(place);
}
