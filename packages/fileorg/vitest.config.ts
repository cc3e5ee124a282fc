import { defineProject } from "vitest/config";

export default defineProject({
  resolve: { conditions: ["@vetted/source"] },
  ssr: { resolve: { conditions: ["@vetted/source"] } },
  test: {
    name: "fileorg",
    include: ["src/**/*.test.ts"],
    environment: "node",
  },
});
