import { defineProject } from "vitest/config";

export default defineProject({
  resolve: { conditions: ["@vetted/source"] },
  ssr: { resolve: { conditions: ["@vetted/source"] } },
  test: {
    name: "comparison",
    include: ["src/**/*.test.ts"],
    environment: "node",
  },
});
