import { register } from "node:module";

register("./without-peers-hooks.mjs", import.meta.url);
