/**
 * Who may talk to the dashboard: a Host header that parses (and, where an allowlist is set, names this
 * server — the DNS-rebinding guard), and, where a token is set, that token on every request — as a bearer
 * header, or as the cookie that opening the printed `?token=` link sets. A server bound beyond loopback
 * always has one or the other: `listen()` refuses to start without.
 *
 * @module
 */
import { timingSafeEqual } from "node:crypto";

export interface AccessPolicy {
  /** Host names (without port) requests may be addressed to; any when unset. */
  hosts?: readonly string[];
  /** Access token every request must carry; none when unset. */
  token?: string;
}

export const TOKEN_COOKIE = "arrow_token";

/** A Host header value: a DNS name, an IPv4 address or a bracketed IPv6 address, then an optional port. */
const HOST = /^(?:[A-Za-z0-9](?:[A-Za-z0-9.-]{0,252})?|\[[0-9A-Fa-f:.]{2,45}\])(?::(\d{1,5}))?$/;

/** The host name a request is addressed to (lower case, no port), or null when the header is malformed. */
export function hostOf(header: string | undefined, url: string): string | null {
  if (header === undefined) {
    try {
      return new URL(url).hostname;
    } catch {
      return null;
    }
  }
  const m = HOST.exec(header);
  if (!m || (m[1] !== undefined && Number(m[1]) > 65535)) return null;
  const name = m[1] === undefined ? header : header.slice(0, header.length - m[1].length - 1);
  return name.toLowerCase();
}

/** A fresh random token: 32 bytes, URL-safe. */
export function newToken(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  return btoa(String.fromCharCode(...bytes)).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

/** Compares in time independent of where the strings differ. */
export function sameToken(given: string, expected: string): boolean {
  const a = new TextEncoder().encode(given);
  const b = new TextEncoder().encode(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** How a request presents the token, if at all. */
export function presentedToken(
  req: { header(name: string): string | undefined; query(name: string): string | undefined },
): { token: string; via: "header" | "cookie" | "query" } | null {
  const auth = req.header("authorization");
  const bearer = auth?.match(/^Bearer\s+(\S+)$/i)?.[1];
  if (bearer) return { token: bearer, via: "header" };
  const q = req.query("token");
  if (q) return { token: q, via: "query" };
  for (const part of (req.header("cookie") ?? "").split(";")) {
    const [k, ...v] = part.trim().split("=");
    if (k === TOKEN_COOKIE && v.length) return { token: v.join("="), via: "cookie" };
  }
  return null;
}

/** The cookie that lets the page (and its fetches and event streams) carry the token from then on. */
export function tokenCookie(token: string): string {
  return `${TOKEN_COOKIE}=${token}; Path=/; HttpOnly; SameSite=Strict`;
}
