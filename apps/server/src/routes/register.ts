import { Hono } from "hono";
import type { AppDeps, AppEnv } from "../app.js";

/** `GET /register`: 307 to the frontend's register page. Plain Hono, so it stays out of the OpenAPI document. */
export function createRegisterRoutes(deps: AppDeps) {
  const target = new URL("/register", deps.config.frontendUrl).toString();
  return new Hono<AppEnv>().get("/register", (c) => c.redirect(target, 307));
}
