import { Hono } from "hono";
import type { AppDeps, AppEnv } from "../deps.js";

/**
 * `GET /register`: 307 to an external frontend's register page (`VETTED_FRONTEND_URL`), else to the console
 * this server serves at `/`. Plain Hono, so it stays out of the OpenAPI document.
 */
export function createRegisterRoutes(deps: AppDeps) {
  const { frontendUrl } = deps.config;
  const target = frontendUrl === undefined ? "/" : new URL("/register", frontendUrl).toString();
  return new Hono<AppEnv>().get("/register", (c) => c.redirect(target, 307));
}
