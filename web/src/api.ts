// The service, as the page calls it: a gRPC-Web client of canasta.v1.CanastaService on the
// page's own origin, and the seat tokens the page keeps for the games it joined.

import { Code, ConnectError, createClient, type Client } from "@connectrpc/connect";
import { createGrpcWebTransport } from "@connectrpc/connect-web";
import { CanastaService } from "./gen/canasta/v1/service_pb.js";

/** The client: binary gRPC-Web to the server that served the page. */
export const api: Client<typeof CanastaService> = createClient(
  CanastaService,
  createGrpcWebTransport({ baseUrl: location.origin, useBinaryFormat: true }),
);

/** The call options that act for a seat (or for the game's creator). */
export function as(token: string | undefined): { headers?: Record<string, string> } {
  return token ? { headers: { authorization: `Bearer ${token}` } } : {};
}

/** An error of a call as a player reads it: the server's message, and its reason code. */
export function errorText(e: unknown): string {
  if (e instanceof ConnectError) {
    const reason = e.metadata.get("canasta-reason");
    if (e.code === Code.Unavailable || e.code === Code.Unknown && !reason) {
      return `The server cannot be reached (${e.rawMessage || Code[e.code]}): is it running?`;
    }
    return reason ? `${e.rawMessage} (${reason})` : e.rawMessage;
  }
  return e instanceof Error ? e.message : String(e);
}

/** The reason code of a call's error, if the server gave one. */
export function reasonOf(e: unknown): string | null {
  return e instanceof ConnectError ? e.metadata.get("canasta-reason") : null;
}

/** A seat the page holds in a game. */
export interface HeldSeat {
  seat: number;
  token: string;
}

// Kept per tab (sessionStorage): a reload keeps playing the seat, another tab or window of the
// same browser watches as anyone would unless it joins a seat of its own.
const seatKey = (gameId: string) => `canasta.seat.${gameId}`;
const creatorKey = (gameId: string) => `canasta.creator.${gameId}`;

/** The seat this tab holds in a game, if any. */
export function heldSeat(gameId: string): HeldSeat | undefined {
  try {
    const raw = sessionStorage.getItem(seatKey(gameId));
    if (!raw) return undefined;
    const held = JSON.parse(raw) as HeldSeat;
    return typeof held.token === "string" && typeof held.seat === "number" ? held : undefined;
  } catch {
    return undefined;
  }
}

/** Keeps the seat this tab joined. */
export function holdSeat(gameId: string, held: HeldSeat): void {
  sessionStorage.setItem(seatKey(gameId), JSON.stringify(held));
}

/** Forgets the seat this tab held (after leaving it). */
export function dropSeat(gameId: string): void {
  sessionStorage.removeItem(seatKey(gameId));
}

/** The creator token of a game this tab created. */
export function creatorToken(gameId: string): string | undefined {
  return sessionStorage.getItem(creatorKey(gameId)) ?? undefined;
}

/** Keeps the creator token of a game this tab created. */
export function holdCreator(gameId: string, token: string): void {
  sessionStorage.setItem(creatorKey(gameId), token);
}

/** A request id, unique for the page's actions (a retried action is applied once). */
export function requestId(): string {
  const bytes = new Uint8Array(12);
  crypto.getRandomValues(bytes);
  return `web-${Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("")}`;
}
