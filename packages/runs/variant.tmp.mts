import { build, type Options } from "tsup";
import config from "./tsup.config.ts";
const [name, entry, ...flags] = process.argv.slice(2);
const base = config as Options;
await build({
  ...base, config: false, entry: { index: entry }, outDir: `/tmp/fpc/v-${name}`, dts: false, sourcemap: flags.includes("map"), clean: true, silent: true,
  ...(flags.includes("minify") ? { minify: true } : {}),
  ...(flags.includes("ip") ? { noExternal: ["zod", "drizzle-orm", "ipaddr.js"] } : {}),
  ...(flags.includes("ipre") ? { noExternal: ["zod", "drizzle-orm", "ipaddr.js", "re2js"] } : {}),
});
