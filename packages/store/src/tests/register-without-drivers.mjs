import { register } from "node:module";

register("./without-drivers.mjs", import.meta.url);
