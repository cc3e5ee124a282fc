import packageJson from "../package.json" with { type: "json" };

/** The version of `@vetted/cli` (printed by `vetted --version`). */
export const CLI_VERSION: string = packageJson.version;
