import { defineConfig } from "drizzle-kit";

/** Migrations of the review, preferences and inbox tables (their own set, applied by `migrateReview`). */
export default defineConfig({
  dialect: "sqlite",
  schema: "./src/store/review-schema.ts",
  out: "./drizzle/review",
});
